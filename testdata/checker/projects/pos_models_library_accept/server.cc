// A guard service on the library's acceptor: it accepts each client into a StreamSocket (handed
// to accept(), returned by it, or handed to async_accept()'s handler and moved into a session
// object) and reads the client's credentials from it. Nothing enables
// SO_PASSCRED, on the acceptor or on the connections: no credentials ever arrive.
#include <sys/socket.h>

#include <cstring>
#include <functional>
#include <memory>
#include <utility>

#include "net.h"

using Protocol = net::local::StreamProtocol;

static bool from_root(int fd) {
  char data[64];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov{data, sizeof data};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0)
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return false;
  ucred cred;
  std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

bool admit_into(const char *path) {
  net::Acceptor<Protocol> acceptor(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: listening socket created here
  net::StreamSocket<Protocol> peer;
  acceptor.accept(peer); // EXPECT-NOTE: accept() here
  return from_root(peer.native_handle()); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (Acceptor::accept() in admit_into()) never has SO_PASSCRED
}

bool admit_returned(const char *path) {
  net::Acceptor<Protocol> acceptor(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: listening socket created here
  net::StreamSocket<Protocol> peer = acceptor.accept(); // EXPECT-NOTE: accept() here
  return from_root(peer.native_handle()); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (Acceptor::accept() in admit_returned()) never has SO_PASSCRED
}

// A session owns its connection: async_accept()'s handler moves each new one into a session.
class Session {
public:
  explicit Session(net::StreamSocket<Protocol> socket) : socket_(std::move(socket)) {}
  bool admitted() { return from_root(socket_.native_handle()); } // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (Acceptor::async_accept() in admit_async()) never has SO_PASSCRED

private:
  net::StreamSocket<Protocol> socket_;
};

void admit_async(const char *path) {
  net::Acceptor<Protocol> acceptor(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: listening socket created here
  acceptor.async_accept([](net::StreamSocket<Protocol> socket) { // EXPECT-NOTE: accept() here
    Session session(std::move(socket));
    session.admitted();
  });
}

// The handler as a member function bound with std::bind: the library supplies its argument (_1).
class Gate {
public:
  explicit Gate(const char *path) : acceptor_(net::Endpoint<Protocol>{path}) { // EXPECT-NOTE: listening socket created here
    acceptor_.async_accept(std::bind(&Gate::OnAccept, this, std::placeholders::_1)); // EXPECT-NOTE: accept() here
  }

private:
  bool OnAccept(net::StreamSocket<Protocol> peer) { return from_root(peer.native_handle()); } // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (Acceptor::async_accept() in Gate()) never has SO_PASSCRED
  net::Acceptor<Protocol> acceptor_;
};

// A session keeps itself alive in the handler it hands the library (shared_from_this(), as
// Boost.Asio's examples do); the handler reads the client's credentials.
class Watcher : public std::enable_shared_from_this<Watcher> {
public:
  explicit Watcher(net::StreamSocket<Protocol> socket) : socket_(std::move(socket)) {}
  void Start() {
    auto self = shared_from_this();
    socket_.async_wait([self] { from_root(self->socket_.native_handle()); }); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (Acceptor::async_accept() in watch_async()) never has SO_PASSCRED
  }

private:
  net::StreamSocket<Protocol> socket_;
};

void watch_async(const char *path) {
  net::Acceptor<Protocol> acceptor(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: listening socket created here
  acceptor.async_accept([](net::StreamSocket<Protocol> socket) { // EXPECT-NOTE: accept() here
    std::make_shared<Watcher>(std::move(socket))->Start();
  });
}

#if __cplusplus >= 202002L // (every C++ file of testdata/ is also checked alone with -std=c++17)
// A coroutine that awaits each connection.
net::Task admit_each(const char *path) {
  net::Acceptor<Protocol> acceptor(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: listening socket created here
  for (;;) {
    net::StreamSocket<Protocol> peer = co_await acceptor.async_accept(net::UseAwaitable{}); // EXPECT-NOTE: accept() here
    from_root(peer.native_handle()); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (Acceptor::async_accept() in admit_each()) never has SO_PASSCRED
  }
}
#endif
