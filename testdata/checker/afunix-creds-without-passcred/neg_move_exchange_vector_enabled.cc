// The server of pos_move_exchange_vector.cc enabling SO_PASSCRED on its listener before listen(),
// so every accepted client has it; a second socket of the same class (a notification socket that
// is only written to) never gets it. The clients read in the range-for over the vector are the
// accepted ones, moved in with std::exchange, not every object of the class.
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
  UnixSocket notify = UnixSocket::Stream();
  if (!notify.BindTo(path + ".notify"))
    return -1;
  UnixSocket listener = UnixSocket::Stream();
  if (!listener.SetFlag(SOL_SOCKET, SO_PASSCRED, true) || !listener.BindTo(path) || !listener.Listen(16))
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
