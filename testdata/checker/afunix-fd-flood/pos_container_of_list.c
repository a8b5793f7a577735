// Connections kept on an intrusive list (a `struct list` embedded in each; the owner found back
// with container_of, as nginx's ngx_queue_data() and the kernel's list_entry() do): the pointer
// to the owner is converted from a pointer to its link, so the fd read through it is what any
// connection's fd holds, and each turn of the loop passes a socket.
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct list {
  struct list *next;
};

struct conn {
  int fd;
  struct list link;
};

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static struct list conns;

static int send_fd(int over, int fd) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0; // EXPECT-NOTE: sent here
}

void add_conn(void) {
  struct conn *c = malloc(sizeof *c);
  if (!c)
    return;
  c->fd = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  c->link.next = conns.next;
  conns.next = &c->link;
}

void hand_over_all(int worker) {
  for (struct list *l = conns.next; l; l = l->next) { // EXPECT-NOTE: loop here
    struct conn *c = container_of(l, struct conn, link);
    send_fd(worker, c->fd); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX socket 'c->fd' over 'worker' in a loop (through 'send_fd')
  }
}
