#define _GNU_SOURCE
#include <sys/socket.h>

#include "worker.h"

int channel_accept_credentials(struct worker *w) {
  int on = 1;
  return setsockopt(w->channel[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}
