// pos_range_for_vector_of_pointers.cc with SO_PASSCRED on the listener before listen(): the
// accepted connections inherit it, so nothing is reported.
#include <vector>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

static ssize_t RecvWithCreds(int fd, void *buf, size_t len, ucred *creds) {
  iovec iov = {buf, len};
  char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n = ::recvmsg(fd, &msg, 0);
  if (n < 0)
    return n;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      memcpy(creds, CMSG_DATA(c), sizeof *creds);
      return n;
    }
  creds->pid = 0;
  return n;
}

struct Connection {
  explicit Connection(int fd) : fd(fd) {}
  int fd;
};

class Server {
public:
  bool Listen(const char *path) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    int on = 1;
    setsockopt(listener_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    return bind(listener_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 && listen(listener_, 8) == 0;
  }
  void AcceptOne() { connections_.push_back(new Connection(accept(listener_, nullptr, nullptr))); }
  int Admins() {
    int admins = 0;
    for (Connection *c : connections_) {
      char buf[64];
      ucred cred;
      if (RecvWithCreds(c->fd, buf, sizeof buf, &cred) > 0 && cred.uid == 0)
        admins++;
    }
    return admins;
  }

private:
  int listener_ = -1;
  std::vector<Connection *> connections_;
};

int main() {
  Server server;
  if (!server.Listen("/run/example.sock"))
    return 1;
  server.AcceptOne();
  return server.Admins();
}
