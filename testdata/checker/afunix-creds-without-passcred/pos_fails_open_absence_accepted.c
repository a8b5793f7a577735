// The absence of SCM_CREDENTIALS is tested for, but what the test does is accept: it returns the
// function's success value, or skips the cmsg inside the cmsg loop. Each fails open (an error),
// not closed, although its branch leaves.
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

static bool read_creds(int fd, struct msghdr *msg) { return recvmsg(fd, msg, 0) > 0; }

// `return true` where the function returns false on failure.
bool peer_allowed(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
    return false;
  char byte, control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(sv[0], &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred:7 EXPECT-MESSAGE: accepted unchecked (fails open) EXPECT-SEVERITY: error
    return false;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return true;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

// `return 0` where failures are negative errnos.
int check_peer(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
    return -errno;
  char byte, control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(sv[0], &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred:7 EXPECT-MESSAGE: accepted unchecked (fails open) EXPECT-SEVERITY: error
    return -errno;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return 0;
  if (((struct ucred *)CMSG_DATA(c))->uid != 0)
    return -EPERM;
  return 0;
}

// `continue` in the cmsg loop skips one cmsg; with none, the loop ends and the peer passes.
int root_only(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
    return -1;
  char byte, control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(sv[0], &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred:7 EXPECT-MESSAGE: accepted unchecked (fails open) EXPECT-SEVERITY: error
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_type != SCM_CREDENTIALS)
      continue;
    struct ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    if (cred.uid != 0)
      return -1;
  }
  return 0;
}

// The fix-its, as --fix applies them:
// EXPECT-FIXED: return false;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: return -errno;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
