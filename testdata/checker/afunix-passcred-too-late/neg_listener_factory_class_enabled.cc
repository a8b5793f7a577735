// The socket class factory of pos_listener_factory_class.cc enabling SO_PASSCRED itself, before
// bind() and listen(): in time, and the daemon's later call through the getter is redundant
// (an earlier one may come first), not late. Nothing is reported.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>
#include <memory>
#include <string>

class Socket {
public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() { close(fd_); }
  static std::unique_ptr<Socket> CreateListener(const std::string &path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return nullptr;
    sockaddr_un a = {};
    a.sun_family = AF_UNIX;
    strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    if (bind(fd, (sockaddr *)&a, sizeof a) < 0 || listen(fd, 16) < 0) { close(fd); return nullptr; }
    return std::make_unique<Socket>(fd);
  }
  std::unique_ptr<Socket> Accept() {
    int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return nullptr;
    return std::make_unique<Socket>(c);
  }
  int fd() const { return fd_; }
private:
  int fd_;
};

static bool PeerIsRoot(int fd) {
  char buf[16];
  iovec iov = {buf, sizeof buf};
  char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0) return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS) return false;
  return ((ucred *)CMSG_DATA(c))->uid == 0;
}

class Daemon {
public:
  bool Init() {
    listener_ = Socket::CreateListener("/run/d.sock");
    if (!listener_) return false;
    int on = 1;
    setsockopt(listener_->fd(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    return true;
  }
  void Serve() {
    for (;;) {
      std::unique_ptr<Socket> peer = listener_->Accept();
      if (peer && PeerIsRoot(peer->fd())) Handle(*peer);
    }
  }
  void Handle(Socket &) {}
private:
  std::unique_ptr<Socket> listener_;
};

int main() { Daemon d; if (!d.Init()) return 1; d.Serve(); }

