// pos_loop_table_reader_once.c with SO_PASSCRED on the listener before listen(): every accepted
// connection inherits it, so the reader's credentials arrive. The dispatcher also hands the reader
// the listener, which never gets a message (recvmsg() on a listener fails: experiment
// accept_needs_listener). Nothing to report.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef int (*dispatch_fn)(int fd, void *data);
struct entry {
  int fd;
  void *data;
  dispatch_fn fn;
};
struct loop {
  struct entry *entries;
  int count;
};

static int loop_add(struct loop *l, int fd, void *data, dispatch_fn fn) {
  struct entry *e = &l->entries[l->count++];
  e->fd = fd;
  e->data = data;
  e->fn = fn;
  return 0;
}

static int on_message(int fd, void *data) {
  (void)data;
  char buf[256];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_type == SCM_CREDENTIALS) {
    struct ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    if (cred.uid != 0)
      return -1;
  }
  return 0;
}

static int acceptor(int fd, void *data) {
  struct loop *l = data;
  int conn = accept(fd, NULL, NULL);
  return loop_add(l, conn, l, on_message);
}

int main(void) {
  struct loop l = {.entries = calloc(256, sizeof(struct entry))};
  int server = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, "/run/svc.sock", sizeof addr.sun_path - 1);
  bind(server, (struct sockaddr *)&addr, sizeof addr);
  int on = 1;
  setsockopt(server, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  listen(server, 16);
  loop_add(&l, server, &l, acceptor);
  for (;;)
    for (int i = 0; i < l.count; ++i)
      l.entries[i].fn(l.entries[i].fd, l.entries[i].data);
}

