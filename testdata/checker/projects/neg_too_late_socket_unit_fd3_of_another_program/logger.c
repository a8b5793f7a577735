#define _GNU_SOURCE
#include <stdio.h>
#include <sys/socket.h>

#include "sd-daemon.h"

static void log_datagram(const char *text, const struct ucred *who) {
  printf("[%d/%u] %s\n", who ? (int)who->pid : -1, who ? who->uid : 0, text);
}

int main(void) {
  int one = 1;
  if (sd_listen_fds(1) != 1)
    return 1;
  int fd = SD_LISTEN_FDS_START;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  for (;;) {
    char text[1024];
    char control[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = {.iov_base = text, .iov_len = sizeof text - 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                         .msg_controllen = sizeof control};
    ssize_t n = recvmsg(fd, &msg, 0);
    if (n < 0)
      continue;
    text[n] = 0;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    log_datagram(text, c && c->cmsg_type == SCM_CREDENTIALS ? (struct ucred *)CMSG_DATA(c) : NULL);
  }
}
