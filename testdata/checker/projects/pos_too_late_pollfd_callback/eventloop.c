#include "eventloop.h"

#define MAX_POLLFD 16
static struct pollfd pollfds[MAX_POLLFD];
static struct {
  poll_cb_t cb;
  void *data;
} callbacks[MAX_POLLFD];
static int max_pollfd;

int register_pollcb(int fd, int events, poll_cb_t cb, void *data) {
  if (max_pollfd == MAX_POLLFD)
    return -1;
  int i = max_pollfd++;
  pollfds[i].fd = fd;
  pollfds[i].events = (short)events;
  callbacks[i].cb = cb;
  callbacks[i].data = data;
  return 0;
}

void eventloop(void) {
  for (;;) {
    int n = poll(pollfds, (nfds_t)max_pollfd, -1);
    for (int k = 0; n > 0 && k < max_pollfd; k++)
      if (pollfds[k].revents)
        callbacks[k].cb(&pollfds[k], callbacks[k].data);
  }
}
