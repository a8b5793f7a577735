#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "worker.h"

int worker_spawn(struct worker *w) {
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, w->channel) < 0) // EXPECT-NOTE: never given SO_PASSCRED
    return -1;
  w->pid = fork();
  if (w->pid == 0) {
    close(w->channel[0]);
    _exit(0);
  }
  close(w->channel[1]);
  return 0;
}
