// The findings of pos_dgram_after_bind.c, pos_accepted_socket.c and pos_client_after_send.c,
// suppressed.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int open_log_socket(const struct sockaddr_un *addr) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  int on = 1;
  bind(fd, (const struct sockaddr *)addr, sizeof *addr);
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // NOLINT(afunix-passcred-too-late)
  return fd;
}

int accept_one(void) {
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(lfd, 1);
  int cfd = accept(lfd, NULL, NULL);
  int on = 1;
  // NOLINTNEXTLINE(afunix-passcred-too-late)
  setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  return cfd;
}

int ask(const struct sockaddr_un *addr) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int on = 1;
  connect(fd, (const struct sockaddr *)addr, sizeof *addr);
  send(fd, "?", 1, 0);
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // NOLINT(afunix-passcred-too-late)
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  recvmsg(fd, &msg, 0);
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS && ((struct ucred *)CMSG_DATA(c))->uid == 0;
}
