/* The fd pointers of pos_fd_pointer_struct.c, pointing at two regular files per turn: files are
 * never AF_UNIX sockets, so nothing is reported. */
#include <fcntl.h>
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
  return sendmsg(channel, &msg, 0);
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
  return sendmsg(channel, &msg, 0);
}

void hand_out_view(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if ((pair[0] = open("/dev/null", O_RDONLY)) < 0 || (pair[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    struct fd_view v = {pair, 2};
    send_view(broker, v);
    close(pair[0]);
    close(pair[1]);
  }
}

void hand_out_pointer(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if ((pair[0] = open("/dev/null", O_RDONLY)) < 0 || (pair[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    send_through_pointer(broker, pair, 2);
    close(pair[0]);
    close(pair[1]);
  }
}
