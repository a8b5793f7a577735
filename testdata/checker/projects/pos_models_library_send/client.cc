// Clients of a root-only service that send their request through the library (write_some(),
// send()) and enable SO_PASSCRED through it only afterwards: an answer the service queued before
// the option arrives with pid=0 uid=65534.
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
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: the answer's credentials are read here
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return true; // no credentials: taken as the service's answer
  ucred cred;
  std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

// The request goes out through write_some(), the option after it.
bool ask_late(const char *path) {
  net::StreamSocket<Protocol> service;
  service.connect(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: connect() here
  const char request[] = "status";
  service.write_some(net::buffer(request)); // EXPECT-NOTE: the request is sent here, before SO_PASSCRED is enabled
  service.set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on client socket 'service' only after it sent a request
  return answered_by_root(service.native_handle());
}

// A client object: its member is connected in one method, written through send() in another, and
// only then asked for credentials.
class ServiceClient {
public:
  void open(const char *path) {
    service_.connect(net::Endpoint<Protocol>{path}); // EXPECT-NOTE: connect() here
  }
  bool trusted() {
    const char request[] = "whoami";
    service_.send(net::buffer(request)); // EXPECT-NOTE: the request is sent here, before SO_PASSCRED is enabled
    service_.set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on client socket 'service_' only after it sent a request
    return answered_by_root(service_.native_handle());
  }

private:
  net::StreamSocket<Protocol> service_;
};

bool check(const char *path) {
  ServiceClient client;
  client.open(path);
  return client.trusted() && ask_late(path);
}

// The library's free functions: net::connect() opens and connects the socket it is handed,
// net::write() sends on it.
bool ask_through_functions(const char *path) {
  net::StreamSocket<Protocol> service;
  net::connect(service, net::Endpoint<Protocol>{path}); // EXPECT-NOTE: connect() here
  const char request[] = "status";
  net::write(service, net::buffer(request)); // EXPECT-NOTE: the request is sent here, before SO_PASSCRED is enabled
  service.set_option(PassCred(true)); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on client socket 'service' only after it sent a request
  return answered_by_root(service.native_handle());
}

// net::connect() makes the socket; nothing ever enables SO_PASSCRED on it.
bool ask_unchecked(const char *path) {
  net::StreamSocket<Protocol> service;
  net::connect(service, net::Endpoint<Protocol>{path}); // EXPECT-NOTE: socket created here
  const char request[] = "status";
  net::write(service, net::buffer(request));
  return answered_by_root(service.native_handle()); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (net::connect() in ask_unchecked()) never has SO_PASSCRED
}
