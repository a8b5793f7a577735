// Clearing msg_control after each send does not make the loop send its fds once when the next
// turn points msg_control at the buffer again: every accepted socket goes into flight.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void hand_out(int worker) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  for (;;) { // EXPECT-NOTE: loop here
    int client = accept(listener, NULL, NULL); // EXPECT-NOTE: socket created here
    if (client < 0)
      break;
    msg.msg_control = buf;
    msg.msg_controllen = sizeof buf;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &client, sizeof client);
    sendmsg(worker, &msg, 0); // EXPECT: afunix-fd-flood
    msg.msg_control = NULL;
    msg.msg_controllen = 0;
    close(client);
  }
}
