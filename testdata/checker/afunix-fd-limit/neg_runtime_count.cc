// C++: a count known only at run time, and a constexpr chunk of 128: nothing to report
// statically (the runtime probe sees the real counts).
#include <cstring>
#include <sys/socket.h>
#include <vector>

constexpr int kChunk = 128;

bool passChunk(int over, const std::vector<int> &fds) {
  char byte = 0;
  alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int) * kChunk)];
  iovec iov{};
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = buf;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
  return sendmsg(over, &msg, 0) == 1;
}
