// pos_bound_after_placeholder.cc with SO_PASSCRED on the listener before it listens: every
// connection the bound function reads from inherits it, so the credentials arrive.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>

namespace work {
void post(std::function<void(int status)> job);
} // namespace work

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
  bool Run(const char *path) {
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    int on = 1;
    setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(listener, 16) != 0)
      return false;
    for (;;) {
      int peer = accept(listener, nullptr, nullptr);
      if (peer >= 0)
        work::post(std::bind(&Server::Handle, this, std::placeholders::_1, peer));
    }
  }

private:
  void Handle(int status, int peer) {
    if (status >= 0 && !from_root(peer))
      close(peer);
  }
};

