// A master keeps one socketpair() per worker in a table and tells every other worker about a new
// one by sending its end over theirs (nginx's ngx_pass_open_channel): procs[slot].channel[0] goes
// over procs[i].channel[0] with i != slot, another pair each time (nginx does it in a loop over
// the table, which afunix-fd-flood judges). One socketpair() call makes every entry, so its one
// creation site stands for many sockets: no cycle can be claimed.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_PROCS 64

struct proc {
  int pid;
  int channel[2];
};

struct proc procs[MAX_PROCS];
int last_proc;

static int write_channel(int over, int fd) {
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

int spawn(int slot) {
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, procs[slot].channel) < 0)
    return -1;
  if (slot >= last_proc)
    last_proc = slot + 1;
  return 0;
}

void pass_open_channel(int slot, int i) {
  if (i != slot && procs[i].pid != -1)
    write_channel(procs[i].channel[0], procs[slot].channel[0]);
}

void pass_through_pointer_arithmetic(int slot, int i) {
  struct proc *base = procs;
  write_channel((base + i)->channel[0], (base + slot)->channel[0]);
}
