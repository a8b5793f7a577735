// Loops that wait for the peer in every iteration: a read() of its acknowledgement on the same
// channel, directly or through a helper, bounds the fds in flight to one.
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
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

static int wait_ack(int over) {
  char ack;
  return recv(over, &ack, 1, 0) == 1 ? 0 : -1;
}

void acked_for(int over, int n) {
  for (int i = 0; i < n; i++) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    send_fd(over, s);
    close(s);
    char ack;
    if (read(over, &ack, 1) != 1)
      return;
  }
}

void acked_while_helper(int over) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  while (1) {
    int client = accept(listener, 0, 0);
    send_fd(over, client);
    close(client);
    if (wait_ack(over) < 0)
      break;
  }
}
