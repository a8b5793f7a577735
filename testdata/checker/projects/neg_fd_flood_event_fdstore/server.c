#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"

// The notify socket is writable again: send exactly one queued stream.
static int dispatch_notify_event(sd_event_source *es, int fd, unsigned revents, void *userdata) {
  Server *s = userdata;
  if (s->notify_queue)
    stream_send_notify(s->notify_queue);
  return 0;
}

int server_connect_notify(Server *s) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "/run/systemd/notify"};
  s->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s->notify_fd < 0 || connect(s->notify_fd, (struct sockaddr *)&sa, sizeof sa) < 0)
    return -1;
  // EPOLLOUT
  return sd_event_add_io(s->event, 0, s->notify_fd, 4, dispatch_notify_event, s);
}
