// The socket reaches the message through a struct initialised with a list (positional,
// designated, and an array field), not through an assignment: each is a store into the field.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

struct chmsg {
  int cmd;
  int fd;
};

struct pairmsg {
  int cmd;
  int ends[2];
};

static int write_channel(int s, struct chmsg *ch) {
  struct msghdr msg;
  struct iovec iov = {ch, sizeof *ch};
  union {
    struct cmsghdr cm;
    char space[CMSG_SPACE(sizeof(int))];
  } c;
  memset(&msg, 0, sizeof msg);
  memset(&c, 0, sizeof c);
  msg.msg_control = &c;
  msg.msg_controllen = sizeof c;
  c.cm.cmsg_len = CMSG_LEN(sizeof(int));
  c.cm.cmsg_level = SOL_SOCKET;
  c.cm.cmsg_type = SCM_RIGHTS;
  memcpy(CMSG_DATA(&c.cm), &ch->fd, sizeof(int));
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  return sendmsg(s, &msg, 0); // EXPECT-NOTE: sent here
}

static int write_pair(int s, struct pairmsg *m) {
  struct msghdr msg;
  struct iovec iov = {m, sizeof *m};
  union {
    struct cmsghdr cm;
    char space[CMSG_SPACE(sizeof(int))];
  } c;
  memset(&msg, 0, sizeof msg);
  memset(&c, 0, sizeof c);
  msg.msg_control = &c;
  msg.msg_controllen = sizeof c;
  c.cm.cmsg_len = CMSG_LEN(sizeof(int));
  c.cm.cmsg_level = SOL_SOCKET;
  c.cm.cmsg_type = SCM_RIGHTS;
  memcpy(CMSG_DATA(&c.cm), &m->ends[1], sizeof(int));
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  return sendmsg(s, &msg, 0); // EXPECT-NOTE: sent here
}

void positional(int hub) {
  for (;;) { // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return;
    struct chmsg ch = {1, sv[0]};
    write_channel(hub, &ch); // EXPECT: afunix-fd-flood
  }
}

void designated_array(int hub, int n) {
  for (int i = 0; i < n; i++) { // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return;
    struct pairmsg m = {.cmd = 2, .ends = {sv[0], sv[1]}};
    write_pair(hub, &m); // EXPECT: afunix-fd-flood
  }
}
