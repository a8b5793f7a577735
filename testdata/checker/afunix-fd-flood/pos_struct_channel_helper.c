// Helpers whose channel (and fd) come through a struct: c->fd is the caller's conn.fd, and a
// helper that takes nothing but the struct is still judged where its caller loops.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
  int fd;
  int pending;
};

static void send_pending(struct conn *c) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &c->pending, sizeof(int));
  sendmsg(c->fd, &msg, 0); // EXPECT-NOTE: sent here
}

void hand_out(struct conn *worker) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  for (;;) { // EXPECT-NOTE: loop here
    worker->pending = accept(listener, 0, 0); // EXPECT-NOTE: socket created here
    send_pending(worker); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: over 'c->fd' in a loop (through 'send_pending')
    close(worker->pending);
  }
}
