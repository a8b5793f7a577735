// C++: a control buffer sized CMSG_SPACE(sizeof(int) * 1024) for an SCM_RIGHTS message.
#include <cstring>
#include <sys/socket.h>
#include <vector>

constexpr int kMaxFds = 1024;

bool passAll(int over, const std::vector<int> &fds) {
  char byte = 0;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxFds)); // EXPECT: afunix-fd-limit
  iovec iov{};
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
  return sendmsg(over, &msg, 0) == 1;
}
