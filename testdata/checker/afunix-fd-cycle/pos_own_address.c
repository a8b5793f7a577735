// A datagram socket bound to a path sends itself to that path: it is queued on its own receive
// queue, and once closed only the GC frees it (experiment fd_cycle_own_address).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int loop_back_self(void) {
  int s = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
  if (s < 0)
    return -1;
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strcpy(addr.sun_path, "/run/afunix-testdata/loopback.sock");
  bind(s, (struct sockaddr *)&addr, sizeof addr);
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_name = &addr, .msg_namelen = sizeof addr, .msg_iov = &iov,
                       .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &s, sizeof s);
  ssize_t n = sendmsg(s, &msg, 0); // EXPECT: afunix-fd-cycle // EXPECT-MESSAGE: datagram socket 's' is sent to its own bound address
  close(s);
  return n < 0 ? -1 : 0;
}
