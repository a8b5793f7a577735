// A socketpair() whose reader checks credentials in a CMSG_FIRSTHDR/CMSG_NXTHDR loop. Only the
// SENDING end gets SO_PASSCRED: that attaches credentials, but the reader, without SO_PASSCRED
// itself, never receives the SCM_CREDENTIALS cmsg, so the uid check is skipped (fails open).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int peer_is_root(int fd) {
  char byte;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred uc;
      memcpy(&uc, CMSG_DATA(c), sizeof uc);
      if (uc.uid != 0)
        return 0;
    }
  }
  return 1;
}

int main(void) {
  int sv[2];
  int one = 1;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
    return 1;
  setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  write(sv[1], "x", 1);
  return peer_is_root(sv[0]) ? 0 : 1; // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: the socket passed here (socketpair() in main())
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: return 1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
