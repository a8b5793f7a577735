#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc.h"

void broker(int listener, int worker) {
  for (;;) {
    int client = accept4(listener, 0, 0, SOCK_CLOEXEC);
    if (client < 0)
      continue;
    char byte = 0;
    char buf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                         .msg_controllen = sizeof buf};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &client, sizeof client);
    ipc_sendmsg(worker, &msg, 0);
    close(client);
    if (read(worker, &byte, 1) != 1)
      break;
  }
}

int main(void) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  int pair[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair);
  broker(listener, pair[0]);
}
