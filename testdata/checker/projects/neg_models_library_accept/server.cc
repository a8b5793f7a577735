// pos_models_library_accept with SO_PASSCRED on the acceptor's socket after open() and before it
// binds and listens: every connection it accepts, into a StreamSocket handed to accept() or
// returned by it, inherits the flag, so the credentials arrive.
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
  net::Acceptor<Protocol> acceptor(Protocol{});
  int on = 1;
  setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  net::StreamSocket<Protocol> peer;
  acceptor.accept(peer);
  return from_root(peer.native_handle());
}

bool admit_returned(const char *path) {
  net::Acceptor<Protocol> acceptor(Protocol{});
  int on = 1;
  setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  net::StreamSocket<Protocol> peer = acceptor.accept();
  return from_root(peer.native_handle());
}

class Session {
public:
  explicit Session(net::StreamSocket<Protocol> socket) : socket_(std::move(socket)) {}
  bool admitted() { return from_root(socket_.native_handle()); }

private:
  net::StreamSocket<Protocol> socket_;
};

void admit_async(const char *path) {
  net::Acceptor<Protocol> acceptor(Protocol{});
  int on = 1;
  setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  acceptor.async_accept([](net::StreamSocket<Protocol> socket) {
    Session session(std::move(socket));
    session.admitted();
  });
}

class Gate {
public:
  explicit Gate(const char *path) : acceptor_(Protocol{}) {
    int on = 1;
    setsockopt(acceptor_.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    acceptor_.bind(net::Endpoint<Protocol>{path});
    acceptor_.listen();
    acceptor_.async_accept(std::bind(&Gate::OnAccept, this, std::placeholders::_1));
  }

private:
  bool OnAccept(net::StreamSocket<Protocol> peer) { return from_root(peer.native_handle()); }
  net::Acceptor<Protocol> acceptor_;
};

class Watcher : public std::enable_shared_from_this<Watcher> {
public:
  explicit Watcher(net::StreamSocket<Protocol> socket) : socket_(std::move(socket)) {}
  void Start() {
    auto self = shared_from_this();
    socket_.async_wait([self] { from_root(self->socket_.native_handle()); });
  }

private:
  net::StreamSocket<Protocol> socket_;
};

void watch_async(const char *path) {
  net::Acceptor<Protocol> acceptor(Protocol{});
  int on = 1;
  setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  acceptor.async_accept([](net::StreamSocket<Protocol> socket) {
    std::make_shared<Watcher>(std::move(socket))->Start();
  });
}

#if __cplusplus >= 202002L // (every C++ file of testdata/ is also checked alone with -std=c++17)
net::Task admit_each(const char *path) {
  net::Acceptor<Protocol> acceptor(Protocol{});
  int on = 1;
  setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  for (;;) {
    net::StreamSocket<Protocol> peer = co_await acceptor.async_accept(net::UseAwaitable{});
    from_root(peer.native_handle());
  }
}
#endif
