// pos_unknown_family.c's listener, whose connections are read for credentials: whatever family
// socket(ai->ai_family, ...) makes, the program expects SCM_CREDENTIALS from it (only AF_UNIX and
// netlink sockets deliver them), so the late option on each connection is the accepted-socket
// warning.
#define _GNU_SOURCE
#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int peer_uid(int fd) {
  char buf[64];
  union {
    char b[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                       .msg_controllen = sizeof control.b};
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  return (int)((struct ucred *)CMSG_DATA(c))->uid;
}

int serve(const char *host, const char *service) {
  struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *ai;
  if (getaddrinfo(host, service, &hints, &ai) != 0)
    return -1;
  int lfd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol); // EXPECT-NOTE: listening socket created here
  if (lfd < 0 || bind(lfd, ai->ai_addr, ai->ai_addrlen) < 0)
    return -1;
  if (listen(lfd, 16) < 0) // EXPECT-NOTE: listen() here
    return -1;
  int one = 1;
  for (;;) {
    int cfd = accept(lfd, NULL, NULL); // EXPECT-NOTE: accept() here
    if (cfd < 0)
      continue;
    setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-SEVERITY: warning EXPECT-MESSAGE: accepted socket 'cfd' only after accept()
    if (peer_uid(cfd) == 0)
      write(cfd, "ok\n", 3);
    close(cfd);
  }
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (listen(lfd, 16) < 0) // EXPECT-NOTE: listen() here
