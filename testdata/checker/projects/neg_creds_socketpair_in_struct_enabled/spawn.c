#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "worker.h"

int channel_accept_credentials(struct worker *w);

int worker_spawn(struct worker *w) {
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, w->channel) < 0)
    return -1;
  if (channel_accept_credentials(w) < 0)
    return -1;
  w->pid = fork();
  if (w->pid == 0) {
    close(w->channel[0]);
    _exit(0);
  }
  close(w->channel[1]);
  return 0;
}
