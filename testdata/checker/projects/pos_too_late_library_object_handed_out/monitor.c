#include "monitor.h"

#include <linux/netlink.h>
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

struct monitor *monitor_new_from_socket(const char *path) {
  struct monitor *m = monitor_new();
  if (!m)
    return NULL;
  m->sun.sun_family = AF_UNIX;
  strncpy(m->sun.sun_path, path, sizeof m->sun.sun_path - 1);
  m->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  return m;
}

struct monitor *monitor_new_from_netlink(void) {
  struct monitor *m = monitor_new();
  if (!m)
    return NULL;
  m->sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
  return m;
}

int monitor_enable_receiving(struct monitor *m) {
  const int on = 1;
  if (!m->bound && m->sun.sun_family == AF_UNIX) {
    if (bind(m->sock, (struct sockaddr *)&m->sun, sizeof m->sun) < 0) // EXPECT-NOTE: bind() here
      return -1;
    m->bound = 1;
  }
  // No fix-it: the netlink monitors are bound here too, and would get SO_PASSCRED as well.
  setsockopt(m->sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late:3 EXPECT-NOTE: enabling it before bind() there would enable it on every other socket
  return 0;
}

