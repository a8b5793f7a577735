// pos_syscall_recvmsg.c fixed: SO_PASSCRED is enabled before the raw recvmsg system call, so the
// credentials it looks for arrive.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int authenticate(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
    return -1;
  int on = 1;
  setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (syscall(SYS_recvmsg, sv[0], &msg, 0) <= 0)
    return -EIO;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -EPERM;
  return ((struct ucred *)CMSG_DATA(c))->uid == 0 ? 0 : -EPERM;
}
