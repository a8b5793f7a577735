// C++: a deliberate own-queue send in a GC stress test, suppressed on the line before.
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

static bool sendFd(int over, int fd) {
  char byte = 0;
  alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
  iovec iov{};
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = buf;
  msg.msg_controllen = sizeof buf;
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(over, &msg, 0) == 1;
}

bool makeGarbage() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
    return false;
  // NOLINTNEXTLINE(afunix-fd-cycle)
  bool ok = sendFd(sv[0], sv[1]);
  close(sv[0]);
  close(sv[1]);
  return ok;
}
