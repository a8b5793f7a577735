#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

// Asks the helper and checks that the answer comes from root: SO_PASSCRED is enabled only after
// the request went out, so an answer the helper queued at once arrives with pid=0 uid=65534.
int helper_says_root(const char *request) {
  int one = 1;
  int fd = helper_connect();
  if (fd < 0)
    return 0;
  if (helper_send(fd, request) < 0)
    return 0;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-SEVERITY: note EXPECT-MESSAGE: enabled late on 'fd' (client-after-send), but the program loses no credentials by it: every peer that answers it enables SO_PASSCRED on its own socket before sending

  char answer[16];
  union {
    char b[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = answer, .iov_len = sizeof answer};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                       .msg_controllen = sizeof control.b};
  int ok = recvmsg(fd, &msg, 0) > 0;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  ok = ok && c && c->cmsg_type == SCM_CREDENTIALS && ((struct ucred *)CMSG_DATA(c))->uid == 0;
  close(fd);
  return ok;
}
