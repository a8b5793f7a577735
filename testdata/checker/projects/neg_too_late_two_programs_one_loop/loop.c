#include "loop.h"

#include <poll.h>

void loop_add(struct loop *l, int fd, loop_fn fn, void *data) {
  l->entries[l->count].fd = fd;
  l->entries[l->count].fn = fn;
  l->entries[l->count].data = data;
  l->count++;
}

void loop_run(struct loop *l) {
  struct pollfd fds[16];
  for (;;) {
    for (int i = 0; i < l->count; i++) {
      fds[i].fd = l->entries[i].fd;
      fds[i].events = POLLIN;
    }
    if (poll(fds, l->count, -1) < 0)
      return;
    for (int i = 0; i < l->count; i++)
      if (fds[i].revents & POLLIN)
        l->entries[i].fn(l, l->entries[i].fd, l->entries[i].data);
  }
}
