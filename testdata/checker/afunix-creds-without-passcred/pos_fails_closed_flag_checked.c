// The loop only records that credentials came; the absence is refused after it: every peer is
// refused since nothing enables SO_PASSCRED ("fails closed", a warning).
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/socket.h>

int read_request(pid_t *pid) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  bool have_creds = false;
  if (recvmsg(sv[0], &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: (fails closed) EXPECT-SEVERITY: warning
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_type == SCM_CREDENTIALS) {
      *pid = ((struct ucred *)CMSG_DATA(c))->pid;
      have_creds = true;
    }
  if (!have_creds)
    return -1;
  return 0;
}


// The fix-it, as --fix applies it:
// EXPECT-FIXED: socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: char byte;
