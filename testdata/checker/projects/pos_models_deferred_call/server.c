// Each accepted connection is authenticated on a worker thread: workq_post() runs authenticate()
// with the session it was posted with. The listener never gets SO_PASSCRED, so the credentials
// the worker checks never arrive. The daemon's session with its supervisor is a struct session
// too and has SO_PASSCRED; it is never posted. Without the model authenticate()'s argument would
// be any session, the two sockets would merge, and the one with SO_PASSCRED would hide the bug.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "workq.h"

struct session {
  int fd;
  uid_t peer;
};

static struct session supervisor;

static void authenticate(void *arg) {
  struct session *s = arg;
  char byte;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  s->peer = 0; // no credentials: taken as root
  if (recvmsg(s->fd, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred
    return;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
      memcpy(&s->peer, &((struct ucred *)CMSG_DATA(c))->uid, sizeof s->peer);
}

int serve(struct workq *q, const char *path) {
  int on = 1;
  supervisor.fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  setsockopt(supervisor.fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 16) < 0)
    return -1;
  for (;;) {
    struct session *s = calloc(1, sizeof *s);
    if (s == NULL)
      return -1;
    s->fd = accept(listener, NULL, NULL); // EXPECT-NOTE: accept() here
    workq_post(q, authenticate, s);
  }
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
