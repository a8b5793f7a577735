// A dispatcher hands each accepted connection to a worker with the vendored libancillary, in a
// loop that never waits for the worker: the accepted sockets pile up in flight (fd-flood). A
// second path hands a batch of 300 fds in one call: more than SCM_MAX_FD (fd-limit).
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
  while (1) { // EXPECT-NOTE: loop here
    int client = accept(listener, 0, 0); // EXPECT-NOTE: socket created here
    if (client < 0)
      continue;
    ancil_send_fd(worker, client); // EXPECT: afunix-fd-flood
    close(client);
  }
}

// Fills fds with up to max fds of the workers' sessions; how many it found.
int collect(int *fds, unsigned max);

int hand_over(int worker) {
  int fds[300];
  collect(fds, 300);
  return ancil_send_fds(worker, fds, 300); // EXPECT: afunix-fd-limit
}
