// pos_received_connection.c, but the worker takes its connections from another program, over a
// socket connected to that program's sun_path: the supervisor's own connections go over the
// socketpair() to a second worker that never reads credentials. What the first worker receives is
// not what this program sends, so it stays unknown: no finding (quiet unless --pedantic).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int send_fd(int channel, int fd) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (sendmsg(channel, &msg, 0) < 0)
    return -1;
  return recv(channel, &byte, 1, 0); // the worker's acknowledgement
}

static int receive_fd(int channel) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(channel, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS)
    return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  send(channel, "", 1, 0);
  return fd;
}

static uid_t sender_uid(int conn) {
  char data[64];
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(conn, &msg, 0) <= 0)
    return (uid_t)-1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return (uid_t)-1;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid;
}

static void worker(void) {
  int channel = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  struct sockaddr_un broker = {.sun_family = AF_UNIX, .sun_path = "/run/broker.sock"};
  if (connect(channel, (struct sockaddr *)&broker, sizeof broker) < 0)
    return;
  for (;;) {
    int conn = receive_fd(channel);
    if (conn < 0)
      return;
    if (sender_uid(conn) == 0)
      write(conn, "welcome\n", 8);
    close(conn);
  }
}

int main(void) {
  int pair[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair);
  if (fork() == 0) {
    close(pair[0]);
    if (fork() == 0)
      worker();
    for (;;) {
      int conn = receive_fd(pair[1]);
      if (conn < 0)
        break;
      write(conn, "busy\n", 5);
      close(conn);
    }
    _exit(0);
  }
  close(pair[1]);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = "/run/supervisor.sock"};
  bind(listener, (struct sockaddr *)&addr, sizeof addr);
  listen(listener, 16);
  for (;;) {
    int conn = accept(listener, NULL, NULL);
    if (conn < 0)
      continue;
    send_fd(pair[0], conn);
    close(conn);
  }
}

