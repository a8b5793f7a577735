// pos_models_fd_sender with the worker's acknowledgement read after each hand-over (the loop
// waits: at most one connection in flight), and batches of at most SCM_MAX_FD (253) fds.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ancillary.h"

void dispatch(int worker, const char *path) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 128) < 0)
    return;
  while (1) {
    int client = accept(listener, 0, 0);
    if (client < 0)
      continue;
    ancil_send_fd(worker, client);
    close(client);
    char ack;
    if (read(worker, &ack, 1) != 1)
      return;
  }
}

// Fills fds with up to max fds of the workers' sessions; how many it found.
int collect(int *fds, unsigned max);

int hand_over(int worker) {
  int fds[253];
  collect(fds, 253);
  return ancil_send_fds(worker, fds, 253);
}
