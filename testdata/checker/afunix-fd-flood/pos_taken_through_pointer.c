// A helper that returns what its pointer parameter points to hands each caller back its own fd:
// here a fresh socketpair() end per iteration, sent with no acknowledgement from the peer.
#define _GNU_SOURCE
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
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0; // EXPECT-NOTE: sent here
}

static int get_and_reset(int *p) {
  int t = *p;
  *p = -1;
  return t;
}

void spawn_channels(int control, int count) {
  for (int i = 0; i < count; i++) { // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return;
    int end = get_and_reset(&sv[1]);
    send_fd(control, end); // EXPECT: afunix-fd-flood
    close(end);
  }
}
