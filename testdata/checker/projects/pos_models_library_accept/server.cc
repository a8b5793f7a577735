// A guard service on the library's acceptor: it accepts each client into a StreamSocket (handed
// to accept(), or returned by it) and reads the client's credentials from it. Nothing enables
// SO_PASSCRED, on the acceptor or on the connections: no credentials ever arrive.
#include <sys/socket.h>

#include <cstring>

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
