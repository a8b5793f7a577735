// The socket lives in a struct field and is passed through a wrapper in a do/while loop; the
// loop reads nothing back from the peer.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
  int sock;
  int id;
};

static void send_fd(int over, int fd) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  *(int *)CMSG_DATA(cmsg) = fd;
  sendmsg(over, &msg, 0);
}

static void conn_open(struct conn *c) {
  c->sock = socket(AF_UNIX, SOCK_SEQPACKET, 0); // EXPECT-NOTE: socket created here
}

void hand_off(int broker, struct conn *c, int n) {
  do { // EXPECT-NOTE: loop here
    conn_open(c);
    send_fd(broker, c->sock); // EXPECT: afunix-fd-flood
    close(c->sock);
  } while (--n > 0);
}
