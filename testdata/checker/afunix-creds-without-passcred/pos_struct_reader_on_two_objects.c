// A reader taking a connection struct reads the peer's credentials on its fd; it is called with
// two connections: the trusted one enabled SO_PASSCRED, the other never does. The read sees both
// sockets; the call with the other connection is the one that never gets credentials.
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
  if (recvmsg(c->fd, &msg, 0) < 0) // EXPECT-NOTE: credentials are read here
    return -1;
  struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
  if (!h || h->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred creds;
  memcpy(&creds, CMSG_DATA(h), sizeof creds);
  return (int)creds.uid;
}

int serve(void) {
  int a[2], b[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) != 0)
    return -1;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, b) != 0) // EXPECT-NOTE: socket created here
    return -1;
  int on = 1;
  setsockopt(a[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  struct conn trusted = {a[0], "trusted"}, other = {b[0], "other"};
  int first = peer_uid(&trusted);
  int second = peer_uid(&other); // EXPECT: afunix-creds-without-passcred
  return first == 0 && second == 0;
}

// The fix-it, as --fix applies it: the other connection's socket, right after socketpair().
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(b[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
