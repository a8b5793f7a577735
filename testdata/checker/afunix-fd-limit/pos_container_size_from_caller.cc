// Two wrappers take their fds as a std::span<const int> and copy fds.size_bytes(), or
// sizeof(int) * fds.size(), into one message: the count is the size of what each caller hands
// them. A std::array<int, 300> and a span over an int[300] fix that size in their types, so each
// of these messages carries more than 253 fds and sendmsg() fails with EINVAL. Reported at the
// call that decides the count.
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
  memcpy(CMSG_DATA(c), fds.data(), fds.size_bytes()); // EXPECT-NOTE: the wrapper copies that many fds into one message here
  return sendmsg(ch, &msg, 0) == 1;
}

static bool SendCounted(int ch, std::span<const int> fds) {
  char byte = 0;
  iovec iov = {&byte, 1};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size()); // EXPECT-NOTE: the wrapper copies that many fds into one message here
  return sendmsg(ch, &msg, 0) == 1;
}

void hand_over_array(int channel) {
  std::array<int, 300> fds;
  for (int &f : fds)
    f = dup(0);
  SendSpan(channel, fds); // EXPECT: afunix-fd-limit:3 EXPECT-MESSAGE: this message can carry 300 fds in SCM_RIGHTS
}

void hand_over_plain_array(int channel) {
  int fds[300];
  for (int &f : fds)
    f = dup(0);
  SendCounted(channel, std::span<const int>(fds)); // EXPECT: afunix-fd-limit:3 EXPECT-MESSAGE: this message can carry 300 fds in SCM_RIGHTS
}
