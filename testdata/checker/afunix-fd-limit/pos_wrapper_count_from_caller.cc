// A wrapper sends as many fds as its caller says (SendAll(ch, fds, n) copies sizeof(int) * n
// into one message). The caller hands it a std::array<int, 300>, fds.size() of which is 300
// though the array is not constexpr: the message carries more than 253 fds and sendmsg() fails
// with EINVAL. Reported at the call that decides the count.
#include <array>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

static bool SendAll(int ch, const int *fds, size_t n) {
  char byte = 0;
  iovec iov = {&byte, 1};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * n));
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * n);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * n); // EXPECT-NOTE: the wrapper copies that many fds into one message here
  return sendmsg(ch, &msg, 0) == 1;
}

void hand_over(int channel) {
  std::array<int, 300> fds;
  for (int &f : fds)
    f = dup(0);
  SendAll(channel, fds.data(), fds.size()); // EXPECT: afunix-fd-limit:3 EXPECT-MESSAGE: this message can carry 300 fds in SCM_RIGHTS
}
