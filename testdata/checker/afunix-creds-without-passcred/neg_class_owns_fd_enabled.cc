// The UnixSocket class of pos_class_owns_fd.cc; the server enables SO_PASSCRED through
// SetFlag(level, option, on) on the listener before bind(): the option number crosses the call,
// and the accepted object inherits it.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>
#include <string>

class UnixSocket {
public:
  UnixSocket() = default;
  explicit UnixSocket(int fd) : fd_(fd) {}
  UnixSocket(UnixSocket &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  UnixSocket &operator=(UnixSocket &&other) noexcept {
    if (this != &other) { Close(); fd_ = other.fd_; other.fd_ = -1; }
    return *this;
  }
  ~UnixSocket() { Close(); }

  static UnixSocket Stream() { return UnixSocket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)); }
  bool BindTo(const std::string &path) {
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    return ::bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
  }
  bool Listen(int backlog) { return ::listen(fd_, backlog) == 0; }
  UnixSocket Accept() { return UnixSocket(::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC)); }
  bool SetFlag(int level, int option, bool on) {
    int value = on;
    return ::setsockopt(fd_, level, option, &value, sizeof value) == 0;
  }
  // Returns the peer's uid, or -1 when no credentials came with the message.
  int ReceiveUid(char *buf, size_t len) {
    iovec iov = {buf, len};
    char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(fd_, &msg, 0) < 0)
      return -1;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred;
        memcpy(&cred, CMSG_DATA(c), sizeof cred);
        return static_cast<int>(cred.uid);
      }
    return -1;
  }
  int fd() const { return fd_; }

private:
  void Close() { if (fd_ >= 0) ::close(fd_); fd_ = -1; }
  int fd_ = -1;
};

int serve(const std::string &path) {
  UnixSocket listener = UnixSocket::Stream();
  listener.SetFlag(SOL_SOCKET, SO_PASSCRED, true);
  if (!listener.BindTo(path) || !listener.Listen(16))
    return -1;
  for (;;) {
    UnixSocket client = listener.Accept();
    char buf[256];
    int uid = client.ReceiveUid(buf, sizeof buf);
    if (uid == 0)
      return 0;
  }
}
