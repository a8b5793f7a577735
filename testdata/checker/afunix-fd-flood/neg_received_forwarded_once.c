// A relay run once per connection: it reads one message from the broker and passes each fd it
// carries on to the handler before it exits. The walk over that message's cmsgs repeats the send
// at most once per fd in the message (the kernel puts one message's fds, at most SCM_MAX_FD, in one
// SCM_RIGHTS cmsg), and nothing repeats the relay: no flood.
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_fd(int channel, int fd) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(channel, &msg, 0) < 0 ? -1 : 0;
}

int relay_once(int broker, int handler) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int) * 4)];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  if (recvmsg(broker, &msg, 0) <= 0)
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
      continue;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; ++i) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
      send_fd(handler, fd);
      close(fd);
    }
  }
  return 0;
}

int main(void) {
  int sv[2], handler[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, handler) < 0)
    return 1;
  send_fd(sv[0], handler[1]);
  return relay_once(sv[1], handler[0]) < 0;
}
