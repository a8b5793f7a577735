// The channel comes through a struct (c->fd in the helper): the loop's acknowledgement on the
// same connection (conn.fd, or wait_ack(&conn) reading c->fd) bounds it.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
  int fd;
};

static int send_over(struct conn *c, int fd) {
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
  return sendmsg(c->fd, &msg, 0) < 0 ? -1 : 0;
}

static int wait_ack(struct conn *c) {
  char ack;
  return recv(c->fd, &ack, 1, 0) == 1 ? 0 : -1;
}

void hand_out(struct conn conn) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  for (;;) {
    int client = accept(listener, 0, 0);
    send_over(&conn, client);
    close(client);
    char ack;
    if (recv(conn.fd, &ack, 1, 0) != 1)
      break;
  }
}

void hand_out_waiting(struct conn *conn) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  for (;;) {
    int client = accept(listener, 0, 0);
    send_over(conn, client);
    close(client);
    if (wait_ack(conn) < 0)
      break;
  }
}
