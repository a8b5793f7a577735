// Retry loops around one send (EINTR, EAGAIN) resend the same message: one socket in flight.
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
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
  ssize_t r;
  do
    r = sendmsg(over, &msg, MSG_NOSIGNAL);
  while (r == -1 && errno == EINTR);
  return r < 0 ? -1 : 0;
}

int hand_over(int over) {
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  int rc;
  while ((rc = send_fd(over, s)) < 0 && errno == EAGAIN)
    ;
  close(s);
  return rc;
}
