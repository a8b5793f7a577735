// SO_PASSCRED on the listener only after it has accepted the supervisor's connection: that
// connection never inherits it (on every kernel since 3.12), so whatever the supervisor sends
// arrives without credentials, and main() reads them; a window of connections, not of
// instructions.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// The supervisor's pid from the credentials of its first message; -1 when none came.
static pid_t supervisor_pid(int conn) {
  char data[64];
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(conn, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.pid;
}

int serve(int listener) {
  int one = 1;
  listen(listener, 8); // EXPECT-NOTE: listen() here
  int supervisor = accept(listener, NULL, NULL); // EXPECT-NOTE: connections accepted here may come before SO_PASSCRED is enabled
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: after it may already have accepted connections EXPECT-SEVERITY: error
  return supervisor;
}

int main(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  return supervisor_pid(serve(fd)) <= 0;
}

// The fix-it (the late call uses `one`, declared before listen(); it moves), as --fix applies it:
// EXPECT-FIXED: setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(listener, 8); // EXPECT-NOTE: listen() here
