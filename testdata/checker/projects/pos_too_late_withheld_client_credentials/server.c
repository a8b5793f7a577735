#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

static int open_listener(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  if (listen(fd, 16) < 0)
    return -1;
  return fd;
}

static int authorised(int conn) {
  char buf[256];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(conn, &msg, 0) <= 0)
    return 0;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS && ((struct ucred *)CMSG_DATA(c))->uid == 0;
}

int serve_forever(void) {
  int one = 1;
  int listener = open_listener(CONTROL_SOCKET);
  for (;;) {
    int conn = accept(listener, NULL, NULL);
    if (conn < 0)
      continue;
    setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:5 EXPECT-SEVERITY: note EXPECT-MESSAGE: enabled late on 'conn' (accepted-socket), but the program loses no credentials by it: every client of its address in the program attaches SCM_CREDENTIALS to each message
    write(conn, authorised(conn) ? "ok\n" : "no\n", 3);
    close(conn);
  }
}
