// The UnixSocket of pos_class_owns_fd.cc with the usual move constructor and assignment,
// std::exchange(other.fd_, -1); the server keeps its clients in a std::vector and reads each in a
// range-for. SO_PASSCRED is never enabled: the accepted socket is followed through the moves into
// the vector and out of it.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>
#include <string>
#include <utility>
#include <vector>

class UnixSocket {
public:
  UnixSocket() = default;
  explicit UnixSocket(int fd) : fd_(fd) {}
  UnixSocket(UnixSocket &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UnixSocket &operator=(UnixSocket &&other) noexcept {
    if (this != &other) { Close(); fd_ = std::exchange(other.fd_, -1); }
    return *this;
  }
  ~UnixSocket() { Close(); }

  static UnixSocket Stream() { return UnixSocket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)); } // EXPECT-NOTE: listening socket created here
  bool BindTo(const std::string &path) {
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    return ::bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
  }
  bool Listen(int backlog) { return ::listen(fd_, backlog) == 0; }
  UnixSocket Accept() { return UnixSocket(::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC)); } // EXPECT-NOTE: accept() here
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
    if (::recvmsg(fd_, &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred:9
      return -1;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) { // EXPECT-NOTE: the credentials are looked for here
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
  if (!listener.BindTo(path) || !listener.Listen(16))
    return -1;
  std::vector<UnixSocket> clients;
  for (int i = 0; i < 8; ++i)
    clients.push_back(listener.Accept());
  for (UnixSocket &client : clients) {
    char buf[256];
    if (client.ReceiveUid(buf, sizeof buf) == 0)
      return 0;
  }
  return -1;
}

// The fix-it, as --fix applies it: SO_PASSCRED on the listener before listen(), where the
// accepted sockets inherit it.
// EXPECT-FIXED: bool Listen(int backlog) { { int afunix_on = 1; setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: return ::listen(fd_, backlog) == 0; }
