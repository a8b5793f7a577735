// pos_container_of_list.c with open files on the list: the fd read through the owner found with
// container_of is what any file's fd holds, never a socket.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct list {
  struct list *next;
};

struct file {
  int fd;
  struct list link;
};

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static struct list files;

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
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

void add_file(const char *path) {
  struct file *c = malloc(sizeof *c);
  if (!c)
    return;
  c->fd = open(path, O_RDONLY);
  c->link.next = files.next;
  files.next = &c->link;
}

void hand_over_all(int worker) {
  for (struct list *l = files.next; l; l = l->next) {
    struct file *c = container_of(l, struct file, link);
    send_fd(worker, c->fd);
  }
}
