// Clients of a root-only service on the library's StreamSocket that enable SO_PASSCRED before
// their request: the answer carries the service's credentials.
#include <sys/socket.h>

#include <cstring>

#include "net.h"

using Protocol = net::local::StreamProtocol;
using PassCred = net::BoolOption<SOL_SOCKET, SO_PASSCRED>;

static bool answered_by_root(int fd) {
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

// open() makes the socket and the option is set on it; connect() finds it open.
bool ask_opened(const char *path) {
  net::StreamSocket<Protocol> service;
  service.open();
  service.set_option(PassCred(true));
  service.connect(net::Endpoint<Protocol>{path});
  const char request[] = "status";
  send(service.native_handle(), request, sizeof request, 0);
  return answered_by_root(service.native_handle());
}

// The same, with the option set on the fd itself.
bool ask_opened_raw(const char *path) {
  net::StreamSocket<Protocol> service;
  service.open();
  int one = 1;
  setsockopt(service.native_handle(), SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  service.connect(net::Endpoint<Protocol>{path});
  const char request[] = "status";
  send(service.native_handle(), request, sizeof request, 0);
  return answered_by_root(service.native_handle());
}

// connect() opens the socket; the option comes before the request.
bool ask_connected(const char *path) {
  net::StreamSocket<Protocol> service;
  service.connect(net::Endpoint<Protocol>{path});
  service.set_option(PassCred(true));
  const char request[] = "status";
  send(service.native_handle(), request, sizeof request, 0);
  return answered_by_root(service.native_handle());
}
