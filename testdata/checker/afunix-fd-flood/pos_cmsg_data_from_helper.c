// chrony's add_control_message(): a helper appends a cmsghdr to the message and returns its
// CMSG_DATA(); the caller names SCM_RIGHTS and writes the fd through the pointer it got back.
// That write is the message's payload: accepted AF_UNIX connections passed in a loop, no ack.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

static void *add_control_message(struct msghdr *msg, int level, int type, size_t length) {
  struct cmsghdr *cmsg = (struct cmsghdr *)((char *)msg->msg_control + msg->msg_controllen);
  memset(cmsg, 0, CMSG_SPACE(length));
  cmsg->cmsg_level = level;
  cmsg->cmsg_type = type;
  cmsg->cmsg_len = CMSG_LEN(length);
  msg->msg_controllen += CMSG_SPACE(length);
  return CMSG_DATA(cmsg);
}

static int send_fd(int over, int fd) {
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  char byte = 0;
  struct iovec iov = {&byte, 1};
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  int *data = add_control_message(&msg, SOL_SOCKET, SCM_RIGHTS, sizeof(int));
  *data = fd;
  return sendmsg(over, &msg, 0); // EXPECT-NOTE: sent here
}

void hand_over_connections(void) {
  int sv[2];
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (listener < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
    return;
  listen(listener, 16);
  for (;;) { // EXPECT-NOTE: loop here
    int connection = accept(listener, NULL, NULL); // EXPECT-NOTE: socket created here
    send_fd(sv[0], connection); // EXPECT: afunix-fd-flood
  }
}
