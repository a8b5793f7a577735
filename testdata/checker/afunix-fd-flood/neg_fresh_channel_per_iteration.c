// Each turn accepts a new client and sends it one socket over its own connection: what is in
// flight is bounded by the connections, not by the loop.
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

void serve(int listener) {
  for (;;) {
    int client = accept(listener, 0, 0);
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    send_fd(client, sv[1]);
    close(sv[1]);
    close(client);
  }
}
