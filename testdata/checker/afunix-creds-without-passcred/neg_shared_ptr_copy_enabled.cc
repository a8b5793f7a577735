// pos_shared_ptr_copy.cc with SO_PASSCRED on the listener before listen(): nothing to report.
#include <memory>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

struct Connection {
  explicit Connection(int fd) : fd(fd) {}
  int fd;
};

static bool FromRoot(std::shared_ptr<Connection> conn) {
  char buf[16];
  char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov = {buf, sizeof buf};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(conn->fd, &msg, 0) <= 0)
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
    ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    return cred.uid == 0;
  }
  return true;
}

int main() {
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, "/run/example.sock", sizeof addr.sun_path - 1);
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(listener, 8) != 0)
    return 1;
  for (;;) {
    auto conn = std::make_shared<Connection>(accept(listener, nullptr, nullptr));
    std::shared_ptr<Connection> handed = conn;
    if (FromRoot(handed))
      return 0;
  }
}
