// A guard service on the library's acceptor that sets SO_PASSCRED through the library's
// set_option(), but too late or to no effect, and reads each client's credentials.
#include <netinet/in.h>
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

// The acceptor listens from its construction on; the option comes after, and a client that
// connects in between gets a socket without SO_PASSCRED (6.16 copies the flag at connect()).
bool admit_late(const char *path) {
  net::Acceptor<Protocol> acceptor(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: socket created by Acceptor(), which listens on it before returning
  acceptor.set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on listener 'acceptor' after listen(), before any accept()
  net::StreamSocket<Protocol> peer;
  acceptor.accept(peer);
  return from_root(peer.native_handle());
}

// The same with the library's own bind() and listen(): the fix-it moves the option above them.
bool admit_after_listen(const char *path) {
  net::Acceptor<Protocol> acceptor{Protocol{}};
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen(); // EXPECT-NOTE: Acceptor::listen() listens on it here
  acceptor.set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on listener 'acceptor' after listen(), before any accept()
  net::StreamSocket<Protocol> peer;
  acceptor.accept(peer);
  return from_root(peer.native_handle());
}

// The option object says false: nothing ever enables SO_PASSCRED, so no credentials arrive.
bool admit_disabled(const char *path) {
  net::Acceptor<Protocol> acceptor{Protocol{}}; // EXPECT-NOTE: listening socket created here
  const PassCred off(false);
  acceptor.set_option(off);
  acceptor.bind(net::Endpoint<Protocol>{path});
  acceptor.listen();
  net::StreamSocket<Protocol> peer;
  acceptor.accept(peer); // EXPECT-NOTE: accept() here
  peer.set_option(net::BoolOption<SOL_SOCKET, SO_PASSCRED>(false));
  // 16 is SO_PASSCRED only at SOL_SOCKET (this is IPV6_UNICAST_HOPS).
  peer.set_option(net::BoolOption<IPPROTO_IPV6, IPV6_UNICAST_HOPS>(true));
  return from_root(peer.native_handle()); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (Acceptor::accept() in admit_disabled()) never has SO_PASSCRED
}

// The acceptor on the heap, built by std::make_unique() and used through the pointer.
bool admit_through_pointer(const char *path) {
  auto acceptor = std::make_unique<net::Acceptor<Protocol>>(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: socket created by Acceptor(), which listens on it before returning
  acceptor->set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on listener
  net::StreamSocket<Protocol> peer;
  acceptor->accept(peer);
  return from_root(peer.native_handle());
}

// The acceptor member listens from the constructor's member initialiser on, which runs before
// the body's option.
class Server {
public:
  explicit Server(const char *path) : acceptor_(net::Endpoint<Protocol>{path}) { // EXPECT-NOTE: socket created by Acceptor(), which listens on it before returning
    acceptor_.set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on listener 'acceptor_' after listen(), before any accept()
  }
  bool admit() {
    net::StreamSocket<Protocol> peer;
    acceptor_.accept(peer);
    return from_root(peer.native_handle());
  }

private:
  net::Acceptor<Protocol> acceptor_;
};

// The fix-it moves the option above the library's listen() (the first acceptor makes and listens
// on its socket in one call: no fix-it).
// EXPECT-FIXED: acceptor.bind(net::Endpoint<Protocol>{path});
// EXPECT-FIXED: acceptor.set_option(PassCred(true));
// EXPECT-FIXED: acceptor.listen(); // EXPECT-NOTE: Acceptor::listen() listens on it here
