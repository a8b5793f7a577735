// Small helpers shared by the experiments: an owning fd and the cmsg plumbing.
#pragma once

#include "afunix/kernel/Experiments.h"

#include <cerrno>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace afunix::kernel {

class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  Fd(Fd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd &operator=(Fd &&o) noexcept {
    reset(std::exchange(o.fd_, -1));
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0)
      close(fd_);
    fd_ = fd;
  }

private:
  int fd_ = -1;
};

struct Pair {
  Fd a, b;
};

// socketpair(AF_UNIX, type | SOCK_CLOEXEC); both Fds invalid on failure (errno kept).
inline Pair unixPair(int type) {
  int sv[2];
  if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) != 0)
    return {};
  return {Fd(sv[0]), Fd(sv[1])};
}

inline bool setFlag(int fd, int option, int value = 1) {
  return setsockopt(fd, SOL_SOCKET, option, &value, sizeof value) == 0;
}

inline int getFlag(int fd, int option) {
  int value = -1;
  socklen_t len = sizeof value;
  if (getsockopt(fd, SOL_SOCKET, option, &value, &len) != 0)
    return -1;
  return value;
}

// One-byte sendmsg() carrying `fds` in an SCM_RIGHTS cmsg (none when count == 0).
ssize_t sendWithFds(int sock, const int *fds, int count, int flags = 0);
// recvmsg() of up to `len` bytes; received fds are closed. Returns bytes, -1 with errno.
ssize_t recvAndCloseFds(int sock, void *buf, std::size_t len, int flags = 0);
// The same, but the received fds are appended to `fds` (the caller closes them).
ssize_t recvFds(int sock, void *buf, std::size_t len, std::vector<int> &fds, int flags = 0);

std::string pidOfPidfd(int pidfd); // the "Pid:" line of /proc/self/fdinfo/<pidfd>, "" if none

// Everything `fd` gives until end of file (a child's report on a pipe), read through EINTR.
std::string readUntilEof(int fd);
// waitpid() for `child` through EINTR: its status (0 if it cannot be waited for).
int waitForChild(pid_t child);

} // namespace afunix::kernel

namespace afunix::kernel {

// The socket inode of an fd (st_ino), 0 if it is not open.
unsigned long inodeOf(int fd);
// Which of `inodes` /proc/net/unix (this network namespace) still lists: sockets the kernel has
// not freed. A socket released by close() leaves the table at once; one only the GC can free
// stays until a GC run.
std::vector<unsigned long> listedInodes(const std::vector<unsigned long> &inodes);
// Starts a unix GC run the way the kernel does after a close: releasing an AF_UNIX socket while
// anything is in flight. Then waits (up to `seconds`) until none of `inodes` is listed; returns
// whether they all went.
bool collectGarbage(const std::vector<unsigned long> &inodes, double seconds);



} // namespace afunix::kernel
