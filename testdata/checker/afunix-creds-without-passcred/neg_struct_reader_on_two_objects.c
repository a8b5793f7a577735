// The reader of pos_struct_reader_on_two_objects.c, called with connections that all have
// SO_PASSCRED but one, which holds either an enabled socket or one without it (that call may get
// credentials: not judged).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

struct conn {
  int fd;
  const char *name;
};

// The peer's uid, or -1 when the message came without credentials.
static int peer_uid(struct conn *c) {
  char data[64];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(c->fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
  if (!h || h->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred creds;
  memcpy(&creds, CMSG_DATA(h), sizeof creds);
  return (int)creds.uid;
}

int serve(int pick) {
  int a[2], b[2], c[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, b) != 0 ||
      socketpair(AF_UNIX, SOCK_STREAM, 0, c) != 0)
    return -1;
  int on = 1;
  setsockopt(a[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  setsockopt(b[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  struct conn first = {a[0], "first"}, second = {b[0], "second"}, either = {pick ? a[0] : c[0], "either"};
  return peer_uid(&first) == 0 && peer_uid(&second) == 0 && peer_uid(&either) == 0;
}
