// A socketpair handed out through pointers to an RAII owner (CreatePair(ScopedFD *, ScopedFD *),
// `a->reset(fds[0])`), one end moved into a server object that reads SCM_CREDENTIALS from it.
// Nobody enables SO_PASSCRED: the end is followed through `->reset()` on the caller's owner, the
// move into the constructor's by-value parameter and the member's `.get()`.
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>
#include <utility>

class ScopedFD {
public:
  ScopedFD() = default;
  explicit ScopedFD(int fd) : fd_(fd) {}
  ScopedFD(ScopedFD &&other) noexcept : fd_(other.release()) {}
  ScopedFD &operator=(ScopedFD &&other) noexcept { reset(other.release()); return *this; }
  ~ScopedFD() { reset(); }
  void reset(int fd = -1) { if (fd_ >= 0) ::close(fd_); fd_ = fd; }
  int get() const { return fd_; }
  int release() { int fd = fd_; fd_ = -1; return fd; }

private:
  int fd_ = -1;
};

static ssize_t RecvWithCreds(int fd, void *buf, size_t len, ucred *creds) {
  iovec iov = {buf, len};
  char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n = ::recvmsg(fd, &msg, 0); // EXPECT-NOTE: credentials are read here
  if (n < 0)
    return n;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      memcpy(creds, CMSG_DATA(c), sizeof *creds);
      return n;
    }
  creds->uid = static_cast<uid_t>(-1);
  return n;
}

static bool CreatePair(ScopedFD *server, ScopedFD *client) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) // EXPECT-NOTE: socket created here
    return false;
  server->reset(fds[0]);
  client->reset(fds[1]);
  return true;
}

class Server {
public:
  explicit Server(ScopedFD sock) : sock_(std::move(sock)) {}
  bool FromRoot() {
    char buf[64];
    ucred cred;
    return RecvWithCreds(sock_.get(), buf, sizeof buf, &cred) > 0 && cred.uid == 0; // EXPECT: afunix-creds-without-passcred:12
  }

private:
  ScopedFD sock_;
};

int main() {
  ScopedFD server_end, client_end;
  if (!CreatePair(&server_end, &client_end))
    return 1;
  Server server(std::move(server_end));
  if (fork() == 0) {
    (void)write(client_end.get(), "x", 1);
    _exit(0);
  }
  return server.FromRoot() ? 0 : 1;
}

// The fix-it, as --fix applies it: the server's end, right after socketpair().
// EXPECT-FIXED: return false;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
