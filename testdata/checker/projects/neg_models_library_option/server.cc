// pos_models_library_option with SO_PASSCRED set through the library's set_option() on the
// acceptor before it binds and listens, or on each connection before it is read: the credentials
// arrive.
#include <sys/socket.h>

#include <cstring>
#include <memory>

#include "net.h"

using Protocol = net::local::StreamProtocol;
using PassCred = net::BoolOption<SOL_SOCKET, SO_PASSCRED>;

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

bool admit(const char *path) {
  net::Acceptor<Protocol> acceptor{Protocol{}};
  acceptor.set_option(PassCred(true));
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  net::StreamSocket<Protocol> peer;
  acceptor.accept(peer);
  return from_root(peer.native_handle());
}

// The option as a named object, as Boost.Asio's examples write it.
bool admit_named(const char *path) {
  net::Acceptor<Protocol> acceptor{Protocol{}};
  PassCred on(true);
  acceptor.set_option(on);
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  net::StreamSocket<Protocol> peer;
  acceptor.accept(peer);
  return from_root(peer.native_handle());
}

// The acceptor member only makes its socket in the constructor's member initialiser; the body
// enables the option before it binds and listens.
class Server {
public:
  explicit Server(const char *path) : acceptor_(Protocol{}) {
    acceptor_.set_option(PassCred(true));
    acceptor_.bind(net::Endpoint<Protocol>{path});
    acceptor_.listen();
  }
  bool admit() {
    net::StreamSocket<Protocol> peer;
    acceptor_.accept(peer);
    return from_root(peer.native_handle());
  }

private:
  net::Acceptor<Protocol> acceptor_;
};

// The acceptor on the heap, built by std::make_unique() and used through the pointer.
bool admit_through_pointer(const char *path) {
  auto acceptor = std::make_unique<net::Acceptor<Protocol>>(Protocol{});
  acceptor->set_option(PassCred(true));
  acceptor->bind(net::Endpoint<Protocol>{path});
  acceptor->listen();
  net::StreamSocket<Protocol> peer;
  acceptor->accept(peer);
  return from_root(peer.native_handle());
}
