// One helper makes two listeners: the control socket gets SO_PASSCRED before listen(), the
// status socket never does, yet its connections are read for credentials. Each call of the
// helper is a socket of its own, so the control socket's option does not cover the other.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int make_stream_socket(void) {
  return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static int uid_of_peer(int fd) {
  char byte;
  char buf[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred u;
  memcpy(&u, CMSG_DATA(c), sizeof u);
  return (int)u.uid;
}

int control_listener(void) {
  int one = 1;
  int fd = make_stream_socket();
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  listen(fd, 8);
  return fd;
}

int status_listener(void) {
  int fd = make_stream_socket(); // EXPECT-NOTE: listening socket created here
  listen(fd, 8);
  return fd;
}

void serve(void) {
  int control = control_listener(), status = status_listener();
  for (;;) {
    int a = accept(control, NULL, NULL);
    uid_of_peer(a);
    close(a);
    int b = accept(status, NULL, NULL); // EXPECT-NOTE: accept() here
    uid_of_peer(b); // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (accept() in serve()) never has SO_PASSCRED
    close(b);
  }
}

// The fix-it, as --fix applies it: the status listener gets SO_PASSCRED before listen().
// EXPECT-FIXED: int fd = make_stream_socket(); // EXPECT-NOTE: listening socket created here
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
