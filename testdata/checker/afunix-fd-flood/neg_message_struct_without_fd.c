// nginx's channel messages: a local struct handed to the channel writer, which attaches ch->fd
// only when it is not -1. One caller puts a socket in it once; the caller that sends in a loop
// sets fd to -1. What the writer sends at each call is what that caller stored in its own
// struct, not every socket ever stored in the field.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

struct chmsg {
  int cmd;
  int fd;
};

static int write_channel(int s, struct chmsg *ch) {
  struct msghdr msg;
  struct iovec iov = {ch, sizeof *ch};
  union {
    struct cmsghdr cm;
    char space[CMSG_SPACE(sizeof(int))];
  } c;
  memset(&msg, 0, sizeof msg);
  if (ch->fd != -1) {
    memset(&c, 0, sizeof c);
    msg.msg_control = &c;
    msg.msg_controllen = sizeof c;
    c.cm.cmsg_len = CMSG_LEN(sizeof(int));
    c.cm.cmsg_level = SOL_SOCKET;
    c.cm.cmsg_type = SCM_RIGHTS;
    memcpy(CMSG_DATA(&c.cm), &ch->fd, sizeof(int));
  }
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  return sendmsg(s, &msg, 0);
}

int open_channel(int hub) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
    return -1;
  struct chmsg open_msg;
  memset(&open_msg, 0, sizeof open_msg);
  open_msg.cmd = 1;
  open_msg.fd = sv[0];
  write_channel(hub, &open_msg);
  return sv[1];
}

void signal_all(int hub, int workers) {
  struct chmsg quit_msg;
  memset(&quit_msg, 0, sizeof quit_msg);
  quit_msg.cmd = 2;
  quit_msg.fd = -1;
  for (int i = 0; i < workers; i++)
    write_channel(hub, &quit_msg);
}

void respawn(int hub, int workers) {
  for (int i = 0; i < workers; i++) {
    struct chmsg m = {.cmd = 3, .fd = -1};
    write_channel(hub, &m);
  }
}
