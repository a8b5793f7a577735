// The listener comes back through an out-parameter (int *out); the accepted socket's credentials
// are read directly. Neither the listener nor the accepted socket ever gets SO_PASSCRED.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int open_server(const char *path, int *out) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  *out = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  if (*out < 0 || bind(*out, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  return listen(*out, 8);
}

int main(void) {
  int server;
  if (open_server("/run/app.sock", &server) < 0)
    return 1;
  int conn = accept(server, NULL, NULL); // EXPECT-NOTE: accept() here
  char buf[32];
  union {
    char buf[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  if (recvmsg(conn, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred
    return 1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_type == SCM_CREDENTIALS && ((struct ucred *)CMSG_DATA(c))->uid != 0)
      return 1;
  return 0;
}
