// pos_optional_owner.cc with SO_PASSCRED on the listener (fd.get()) before listen(): nothing
// to report.
#include <optional>
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

class UniqueFd {
public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
  ~UniqueFd() { if (fd_ >= 0) ::close(fd_); }
  int get() const { return fd_; }
  int release() { int fd = fd_; fd_ = -1; return fd; }

private:
  int fd_;
};

static std::optional<UniqueFd> MakeListener(const char *path) {
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int on = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (bind(fd.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(fd.get(), 8) != 0)
    return std::nullopt;
  return fd;
}

int main() {
  std::optional<UniqueFd> listener = MakeListener("/run/example.sock");
  if (!listener)
    return 1;
  for (;;) {
    UniqueFd client(accept(listener->get(), nullptr, nullptr));
    char buf[16];
    ucred cred;
    if (RecvWithCreds(client.get(), buf, sizeof buf, &cred) > 0 && cred.uid == 0)
      return 0;
  }
}
