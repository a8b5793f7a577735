// As pos_models_deferred_call, but the listener has SO_PASSCRED before listen(), so every posted
// session's socket inherits it; the supervisor session, never posted, has none. The model hands
// authenticate() the posted sessions only, so the one without SO_PASSCRED never reaches the check.
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
  if (recvmsg(s->fd, &msg, 0) <= 0)
    return;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
      memcpy(&s->peer, &((struct ucred *)CMSG_DATA(c))->uid, sizeof s->peer);
}

int serve(struct workq *q, const char *path) {
  int on = 1;
  supervisor.fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 16) < 0)
    return -1;
  for (;;) {
    struct session *s = calloc(1, sizeof *s);
    if (s == NULL)
      return -1;
    s->fd = accept(listener, NULL, NULL);
    workq_post(q, authenticate, s);
  }
}

