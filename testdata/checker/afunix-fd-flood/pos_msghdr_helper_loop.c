// The message is built by the caller, and sendmsg() lives in a helper that takes the msghdr
// (as in s6's fd_sendmsg()): the send is judged where the SCM_RIGHTS message is built.
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static ssize_t xsendmsg(int fd, const struct msghdr *m) {
  ssize_t r;
  do
    r = sendmsg(fd, m, MSG_NOSIGNAL); // EXPECT-NOTE: sent here
  while (r == -1 && errno == EINTR);
  return r;
}

void hand_all(int over, int n) {
  for (int i = 0; i < n; i++) { // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return;
    char byte = 0;
    char buf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                         .msg_controllen = sizeof buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
    xsendmsg(over, &msg); // EXPECT: afunix-fd-flood
    close(sv[1]);
  }
}
