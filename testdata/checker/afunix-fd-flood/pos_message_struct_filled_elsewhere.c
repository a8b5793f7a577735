// The message struct is filled in by another function through a pointer before it is sent: its
// fields are not only what the sending function stored, so every socket stored in the field
// counts (here a fresh socketpair() end per iteration, no acknowledgement).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

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

static void fill(struct chmsg *m, int fd) {
  m->cmd = 1;
  m->fd = fd;
}

void hand_out(int hub, int n) {
  for (int i = 0; i < n; i++) { // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return;
    struct chmsg m;
    m.fd = -1;
    fill(&m, sv[0]);
    write_channel(hub, &m); // EXPECT: afunix-fd-flood
    close(sv[0]);
  }
}
