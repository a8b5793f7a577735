// pos_models_library_send with SO_PASSCRED in time: enabled through the library before the
// request goes out through write_some() or send(): no finding.
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
    return true; // no credentials: taken as the service's answer
  ucred cred;
  std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

bool ask(const char *path) {
  net::StreamSocket<Protocol> service;
  service.connect(net::Endpoint<Protocol>{path});
  service.set_option(PassCred(true));
  const char request[] = "status";
  service.write_some(net::buffer(request));
  return answered_by_root(service.native_handle());
}

class ServiceClient {
public:
  void open(const char *path) {
    service_.connect(net::Endpoint<Protocol>{path});
    service_.set_option(PassCred(true));
  }
  bool trusted() {
    const char request[] = "whoami";
    service_.send(net::buffer(request));
    return answered_by_root(service_.native_handle());
  }

private:
  net::StreamSocket<Protocol> service_;
};

bool check(const char *path) {
  ServiceClient client;
  client.open(path);
  return client.trusted() && ask(path);
}

// The library's free functions, with SO_PASSCRED enabled between the connect and the write.
bool ask_through_functions(const char *path) {
  net::StreamSocket<Protocol> service;
  net::connect(service, net::Endpoint<Protocol>{path});
  service.set_option(PassCred(true));
  const char request[] = "status";
  net::write(service, net::buffer(request));
  return answered_by_root(service.native_handle());
}
