// pos_received_from_client.c with the client enabling SO_PASSCRED on the end it hands over, before
// it hands it over: the flag is the socket's, so the store's credential check on it works.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define STORE_PATH "/run/fdstore.sock"

// Client side.
int store_channel(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
    return -1;
  int one = 1;
  setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
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
  if (recvmsg(channel, &msg, 0) <= 0)
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
    if (channel >= 0 && owner_pid(channel) > 0)
      write(channel, "stored", 6);
  }
}
