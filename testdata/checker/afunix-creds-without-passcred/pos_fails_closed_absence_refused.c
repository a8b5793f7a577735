// The absence of SCM_CREDENTIALS is refused, each in a way that looks like the accepting forms
// (pos_fails_open_absence_accepted.c): `return false`, a `continue` of the message loop that
// drops the message, and a cmsg loop whose records are checked after it. Each fails closed (a
// warning).
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

// `return false` where true is success.
bool peer_allowed(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
    return false;
  char byte, control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(sv[0], &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred:7 EXPECT-MESSAGE: refuses every peer (fails closed) EXPECT-SEVERITY: warning
    return false;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return false;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

// `continue` of the loop that reads messages: the message without credentials is dropped.
void serve(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
    return;
  for (;;) {
    char byte, control[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = {&byte, 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                         .msg_controllen = sizeof control};
    if (recvmsg(sv[0], &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred:9 EXPECT-MESSAGE: refuses every peer (fails closed) EXPECT-SEVERITY: warning
      return;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
      continue;
    if (((struct ucred *)CMSG_DATA(c))->uid == 0)
      break;
  }
}

// `continue` in the cmsg loop, and after the loop a test of what it recorded.
int root_only(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
    return -1;
  char byte, control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(sv[0], &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred:7 EXPECT-MESSAGE: refuses every peer (fails closed) EXPECT-SEVERITY: warning
    return -1;
  int uid = -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_type != SCM_CREDENTIALS)
      continue;
    struct ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    uid = cred.uid;
  }
  if (uid != 0)
    return -1;
  return 0;
}

// The fix-its, as --fix applies them:
// EXPECT-FIXED: return false;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: return;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
