// An event loop whose table is one heap array: the acceptor registers each connection with the
// reader, which checks the sender's credentials; nothing ever enables SO_PASSCRED, so none
// arrive. The reader gets the connection twice over in the analysis: from its registration
// (loop_add()) and from the dispatcher's call through the entry's pointer. One finding, at the
// registration, the statement that names the reader; the dispatcher runs every entry's callback
// and is no place to fix. The dispatcher hands the reader the listener too, which is never read
// (recvmsg() on a listener fails: experiment accept_needs_listener), so it is no finding either.
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
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
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
  int conn = accept(fd, NULL, NULL); // EXPECT-NOTE: accept() here
  return loop_add(l, conn, l, on_message); // EXPECT: afunix-creds-without-passcred
}

int main(void) {
  struct loop l = {.entries = calloc(256, sizeof(struct entry))};
  int server = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, "/run/svc.sock", sizeof addr.sun_path - 1);
  bind(server, (struct sockaddr *)&addr, sizeof addr);
  listen(server, 16);
  loop_add(&l, server, &l, acceptor);
  for (;;)
    for (int i = 0; i < l.count; ++i)
      l.entries[i].fn(l.entries[i].fd, l.entries[i].data);
}

// The fix-it, as --fix applies it: the listener gets SO_PASSCRED before listen(), and every
// accepted connection inherits it.
// EXPECT-FIXED: bind(server, (struct sockaddr *)&addr, sizeof addr);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(server, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(server, 16);
