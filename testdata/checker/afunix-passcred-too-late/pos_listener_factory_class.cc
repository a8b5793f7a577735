// A socket class's static factory creates, binds and listens, and returns the socket in a
// std::unique_ptr (make_unique<Socket>(fd) keeps it in this->fd_). The daemon enables
// SO_PASSCRED through the getter after the factory returned: after listen(). The finding is at
// that setsockopt(), with the factory's call as the call that listens; the constructor call that
// only stored the socket is not where the order is decided.
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
    listener_ = Socket::CreateListener("/run/d.sock"); // EXPECT-NOTE: the socket listens from this call
    if (!listener_) return false;
    int on = 1;
    setsockopt(listener_->fd(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late:5 EXPECT-MESSAGE: listener 'listener_->fd()' after listen(), before any accept() EXPECT-SEVERITY: note
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

// The fix-it, as --fix applies it: in the factory, before the statement that listens.
// EXPECT-FIXED: strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (bind(fd, (sockaddr *)&a, sizeof a) < 0 || listen(fd, 16) < 0) { close(fd); return nullptr; }
