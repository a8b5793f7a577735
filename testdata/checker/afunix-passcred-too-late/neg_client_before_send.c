// pos_client_after_send.c with SO_PASSCRED enabled after connect() but before the request: the
// server can only answer a request, so every answer is queued after the option and carries the
// server's credentials (measured on 6.18). Nothing to report.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int ask_root(const char *path, const char *question) {
  int one = 1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  if (write(fd, question, strlen(question)) < 0)
    return -1;

  char answer[64];
  union {
    char b[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = answer, .iov_len = sizeof answer};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                       .msg_controllen = sizeof control.b};
  if (recvmsg(fd, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS || ((struct ucred *)CMSG_DATA(c))->uid != 0)
    return -1;
  return 0;
}
