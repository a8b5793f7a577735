#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "event.h"

int on_listener(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
  (void)s, (void)revents, (void)userdata;
  int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); // EXPECT-NOTE: accept() here
  if (conn < 0)
    return 0;
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: accepted socket 'conn'
  return 0;
}
