// An fd store: clients connect to /run/fdstore.sock and hand it one end of a socketpair() they
// keep talking on; the store reads each sender's credentials from the socket it was given. The
// client never enables SO_PASSCRED on the end it hands over, and the store never does either.
// The store's received fd is what a client connected to the store's sun_path sends (read through
// a pointer into the message: fds[0]).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define STORE_PATH "/run/fdstore.sock"

// Client side.
int store_channel(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
    return -1;
  int store = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = STORE_PATH};
  if (connect(store, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
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
  *(int *)CMSG_DATA(c) = sv[1];
  sendmsg(store, &msg, 0);
  close(store);
  close(sv[1]);
  return sv[0];
}

// Store side.
static int take_fd(int conn) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(conn, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS)
    return -1;
  int *fds = (int *)CMSG_DATA(c);
  return fds[0];
}

static int owner_pid(int channel) {
  char data[64];
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(channel, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.pid;
}

int store_main(void) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = STORE_PATH};
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  bind(listener, (struct sockaddr *)&addr, sizeof addr);
  listen(listener, 16);
  for (;;) {
    int conn = accept(listener, NULL, NULL);
    int channel = take_fd(conn);
    close(conn);
    if (channel >= 0 && owner_pid(channel) > 0) // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (socketpair() in store_channel()) never has SO_PASSCRED
      write(channel, "stored", 6);
  }
}

// The fix-it (on the end that is handed over, right after socketpair(): the flag travels with the
// socket), as --fix applies it:
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: int store = socket(AF_UNIX, SOCK_STREAM, 0);
