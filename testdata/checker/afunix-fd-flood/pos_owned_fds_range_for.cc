// A browser-base-style sender: the fds to pass are owned (std::vector<ScopedFD>, moved into the
// sender), and SendOwned() collects their raw values with `for (const ScopedFD &f : owned)
// raw.push_back(f.get())` before SendMsg() copies raw.data() into the control message. A loop
// hands it both ends of a fresh socketpair and reads no reply. A reference to an fd owner is the
// fd it names.
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>
#include <vector>
#include <utility>

class ScopedFD {
public:
  ScopedFD() = default;
  explicit ScopedFD(int fd) : fd_(fd) {}
  ScopedFD(ScopedFD &&o) noexcept : fd_(o.release()) {}
  ScopedFD &operator=(ScopedFD &&o) noexcept { reset(o.release()); return *this; }
  ~ScopedFD() { reset(); }
  int get() const { return fd_; }
  int release() { int f = fd_; fd_ = -1; return f; }
  void reset(int fd = -1) { if (fd_ >= 0) close(fd_); fd_ = fd; }
private:
  int fd_ = -1;
};

static bool SendMsg(int fd, const void *buf, size_t len, const std::vector<int> &fds) {
  iovec iov = {const_cast<void *>(buf), len};
  char control[CMSG_SPACE(sizeof(int) * 8)];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  return sendmsg(fd, &msg, 0) >= 0; // EXPECT-NOTE: sent here
}

static bool SendOwned(int channel, std::vector<ScopedFD> owned) {
  std::vector<int> raw;
  for (const ScopedFD &f : owned)
    raw.push_back(f.get());
  return SendMsg(channel, "x", 1, raw);
}

int main() {
  int sv[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, pair); // EXPECT-NOTE: socket created here
    std::vector<ScopedFD> owned;
    owned.emplace_back(pair[0]);
    owned.push_back(ScopedFD(pair[1]));
    SendOwned(sv[0], std::move(owned)); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: in a loop (through 'SendOwned')
  }
}
