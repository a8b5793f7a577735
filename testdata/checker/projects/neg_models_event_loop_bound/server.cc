// pos_models_event_loop_bound with SO_PASSCRED on the listener before it listens: the
// connections the bound handler accepts inherit it, so the credentials arrive.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>

#include "loop.h"

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

class Server {
public:
  bool Start(evl_loop *loop, const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(fd, 16) != 0)
      return false;
    watch_fd(loop, fd, std::bind(&Server::OnReady, this, std::placeholders::_1, std::placeholders::_2));
    return true;
  }

private:
  void OnReady(int events, int listener) {
    if (!events)
      return;
    int peer = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (peer >= 0 && !from_root(peer))
      close(peer);
  }
};

