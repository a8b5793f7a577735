// recvmsg() spelled as a raw system call (the model catalog's syscall_wrappers): the socket never
// has SO_PASSCRED, so the SCM_CREDENTIALS the code looks for never arrive.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int authenticate(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0) // EXPECT-NOTE: socket created here, never given SO_PASSCRED
    return -1;
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (syscall(SYS_recvmsg, sv[0], &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred:7 EXPECT-MESSAGE: refuses every peer (fails closed)
    return -EIO;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS) // EXPECT-NOTE: with none the peer is refused
    return -EPERM;
  return ((struct ucred *)CMSG_DATA(c))->uid == 0 ? 0 : -EPERM;
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: char byte;
