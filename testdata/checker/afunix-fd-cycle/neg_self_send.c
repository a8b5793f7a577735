// A socket sent over itself is queued on its peer's receive queue, and the peer's close frees it:
// no cycle (afunix-probe kernel, experiment fd_cycle_own_queue: nothing is left after the closes).
// An unconnected datagram socket with no destination sends nothing at all (ENOTCONN).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int send_fd(int over, int fd) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

int pair_end_over_itself(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
    return -1;
  int rc = send_fd(sv[0], sv[0]);
  close(sv[0]);
  close(sv[1]);
  return rc;
}

int unconnected_dgram_over_itself(void) {
  int s = socket(AF_UNIX, SOCK_DGRAM, 0);
  if (s < 0)
    return -1;
  int rc = send_fd(s, s);
  close(s);
  return rc;
}

int client_over_itself(const struct sockaddr_un *addr) {
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  connect(c, (const struct sockaddr *)addr, sizeof *addr);
  int rc = send_fd(c, c);
  close(c);
  return rc;
}
