/* The fds to pass travel as a pointer: in a struct (a view of the caller's array, passed by
 * value), or in a local pointer the wrapper copies them through. Loops hand both ends of a fresh
 * socketpair to the broker and read no reply, so the fds pile up in flight. */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct fd_view {
  const int *data;
  size_t count;
};

static int send_view(int channel, struct fd_view v) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int) * 8)];
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(v.count * sizeof(int));
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(v.count * sizeof(int));
  memcpy(CMSG_DATA(c), v.data, v.count * sizeof(int));
  return sendmsg(channel, &msg, 0); // EXPECT-NOTE: sent here
}

static int send_through_pointer(int channel, const int *fds, size_t n) {
  const int *from = fds;
  char byte = 0;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int) * 8)];
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(n * sizeof(int));
  memcpy(CMSG_DATA(c), from, n * sizeof(int));
  return sendmsg(channel, &msg, 0); // EXPECT-NOTE: sent here
}

void hand_out_view(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    struct fd_view v = {pair, 2};
    send_view(broker, v); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX sockets from
    close(pair[0]);
    close(pair[1]);
  }
}

void hand_out_pointer(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    send_through_pointer(broker, pair, 2); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX sockets from 'from' over 'broker' in a loop (through 'send_through_pointer')
    close(pair[0]);
    close(pair[1]);
  }
}
