#include "monitor.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

struct monitor {
  int sock;
  int bound;
  struct sockaddr_un sun;
};

static struct monitor *monitor_new(void) { return calloc(1, sizeof(struct monitor)); }

struct monitor *monitor_new_from_netlink(void) {
  struct monitor *m = monitor_new();
  if (!m)
    return NULL;
  m->sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 15 /* NETLINK_KOBJECT_UEVENT */);
  return m;
}

struct monitor *monitor_new_from_socket(const char *path) {
  struct monitor *m = monitor_new();
  if (!m)
    return NULL;
  m->sun.sun_family = AF_UNIX;
  strncpy(m->sun.sun_path, path, sizeof m->sun.sun_path - 1);
  m->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  return m;
}

int monitor_enable_receiving(struct monitor *m) {
  const int on = 1;
  int err = 0;
  if (!m->bound) {
    err = bind(m->sock, (struct sockaddr *)&m->sun, sizeof m->sun); // EXPECT-NOTE: bind() here
    if (err == 0)
      m->bound = 1;
  }
  if (err < 0)
    return err;
  setsockopt(m->sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late:3
  return 0;
}
