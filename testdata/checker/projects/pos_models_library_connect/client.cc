// Clients of a root-only service on the library's StreamSocket, which connect() opens: one never
// enables SO_PASSCRED, one enables it through the library only after it sent its request.
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
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here EXPECT-NOTE: the answer's credentials are read here
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return true; // no credentials: taken as the service's answer
  ucred cred;
  std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

// connect() opens the socket; nothing ever enables SO_PASSCRED on it.
bool ask_unchecked(const char *path) {
  net::StreamSocket<Protocol> service;
  service.connect(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: socket created here
  const char request[] = "status";
  send(service.native_handle(), request, sizeof request, 0);
  return answered_by_root(service.native_handle()); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (StreamSocket::connect() in ask_unchecked()) never has SO_PASSCRED
}

// Enabled through the library, but only after the request went out: an answer the service queued
// before the option arrives with pid=0 uid=65534.
bool ask_late(const char *path) {
  net::StreamSocket<Protocol> service;
  service.connect(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: connect() here
  const char request[] = "status";
  send(service.native_handle(), request, sizeof request, 0); // EXPECT-NOTE: the request is sent here, before SO_PASSCRED is enabled
  service.set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on client socket 'service' only after it sent a request
  return answered_by_root(service.native_handle());
}

// A client object whose member the constructor connects: its check reads credentials the socket
// never asks for.
class ServiceClient {
public:
  explicit ServiceClient(const char *path) {
    service_.connect(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: socket created here
  }
  bool trusted() {
    const char request[] = "whoami";
    send(service_.native_handle(), request, sizeof request, 0);
    return answered_by_root(service_.native_handle()); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (StreamSocket::connect() in ServiceClient()) never has SO_PASSCRED
  }

private:
  net::StreamSocket<Protocol> service_;
};
