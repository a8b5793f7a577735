// A datagram server: bind(), then recvmsg() into a union control buffer and a `switch` on
// cmsg_type. Nothing ever enables SO_PASSCRED on the socket.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int serve(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  for (;;) {
    char buf[256];
    union {
      struct cmsghdr align;
      char buf[CMSG_SPACE(sizeof(struct ucred))];
    } control;
    struct iovec iov = {buf, sizeof buf};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    if (recvmsg(fd, &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred
      return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c)
      continue;
    switch (c->cmsg_type) {
    case SCM_CREDENTIALS: {
      const struct ucred *uc = (const struct ucred *)CMSG_DATA(c);
      if (uc->uid == 0)
        return 0;
      break;
    }
    default:
      break;
    }
  }
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
