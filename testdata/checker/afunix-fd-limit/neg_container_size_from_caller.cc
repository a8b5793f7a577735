// The span wrapper of pos_container_size_from_caller.cc, handed at most 253 fds by each caller:
// a std::array<int, 253>, a span over an int[16], and a std::vector whose size only the running
// program knows (a run-time size is not judged).
// ARGS: -std=c++20
#include <array>
#include <span>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

static bool SendSpan(int ch, std::span<const int> fds) {
  char byte = 0;
  iovec iov = {&byte, 1};
  std::vector<char> control(CMSG_SPACE(fds.size_bytes()));
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(fds.size_bytes());
  memcpy(CMSG_DATA(c), fds.data(), fds.size_bytes());
  return sendmsg(ch, &msg, 0) == 1;
}

void hand_over_most(int channel) {
  std::array<int, 253> fds;
  for (int &f : fds)
    f = dup(0);
  SendSpan(channel, fds);
}

void hand_over_few(int channel) {
  int fds[16];
  for (int &f : fds)
    f = dup(0);
  SendSpan(channel, std::span<const int>(fds));
}

void hand_over_some(int channel, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n && i < 200; i++)
    fds.push_back(dup(0));
  SendSpan(channel, fds);
}
