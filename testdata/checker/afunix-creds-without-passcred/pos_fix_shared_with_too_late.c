// Two findings with the same fix-it: the listener never gets SO_PASSCRED before listen(), one
// accepted connection enables it late (afunix-passcred-too-late) and the other never does
// (afunix-creds-without-passcred). Both are fixed by the one block before listen(). It is offered
// once, with the first finding in source order; the other says so. (clang-tidy inserted the block
// twice when both findings carried it; clang-apply-replacements once.)
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int peer_uid(int fd) {
  char data;
  char buf[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&data, 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
  if (recvmsg(fd, &m, 0) < 0) // EXPECT-NOTE: credentials are read here
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  if (c && c->cmsg_type == SCM_CREDENTIALS) {
    struct ucred u;
    memcpy(&u, CMSG_DATA(c), sizeof u);
    return (int)u.uid;
  }
  return -1;
}

int serve(void) {
  int one = 1;
  int l = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(l, 8); // EXPECT-NOTE: listen() here
  int trusted = accept(l, NULL, NULL);
  setsockopt(trusted, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late
  int other = accept(l, NULL, NULL);
  return peer_uid(trusted) + peer_uid(other); // EXPECT: afunix-creds-without-passcred EXPECT-NOTE: no fix-it of its own: the one for afunix-passcred-too-late at line 32 makes the same change
}

// EXPECT-FIXED: int l = socket(AF_UNIX, SOCK_STREAM, 0);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(l, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(l, 8); // EXPECT-NOTE: listen() here
// EXPECT-FIXED: int trusted = accept(l, NULL, NULL);
