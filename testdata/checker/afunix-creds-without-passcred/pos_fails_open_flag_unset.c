// "If credentials are present, check them": with no SCM_CREDENTIALS cmsg the uid stays 0 and the
// peer passes as root. A hole: worded "fails open", an error.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/types.h>

int is_privileged(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0) // EXPECT-NOTE: socket created here, never given SO_PASSCRED
    return -1;
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  uid_t uid = 0;
  if (recvmsg(sv[0], &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred:7 EXPECT-MESSAGE: every peer is accepted unchecked (fails open) EXPECT-SEVERITY: error
    return 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) // EXPECT-NOTE: with none the peer is accepted
      uid = ((struct ucred *)CMSG_DATA(c))->uid;
  return uid == 0;
}


// The fix-it, as --fix applies it:
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: char byte;
