// A generic poll loop keeps every registration in one table of heap entries and calls
// `e->fn(e->fd, ...)`. The datagram handler enables SO_PASSCRED (again: main() did before bind())
// on the AF_UNIX socket it was registered with; a TCP listener with its own handler is in the
// same table. Through the table
// the datagram handler could be handed the TCP socket (EOPNOTSUPP since 6.16); its registration
// says it is not.
#define _GNU_SOURCE
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef int (*dispatch_fn)(int fd, int revents, void *data);

struct entry {
  struct pollfd ufd;
  void *data;
  dispatch_fn fn;
  struct entry *next;
};
static struct entry *entries;

static int loop_add(int fd, int events, void *data, dispatch_fn fn) {
  struct entry *e = calloc(1, sizeof *e);
  if (!e)
    return -1;
  e->ufd.fd = fd;
  e->ufd.events = (short)events;
  e->data = data;
  e->fn = fn;
  e->next = entries;
  entries = e;
  return 0;
}

static void loop_run(void) {
  for (;;)
    for (struct entry *e = entries; e; e = e->next)
      e->fn(e->ufd.fd, POLLIN, e->data);
}

static int on_datagram(int fd, int revents, void *data) {
  (void)revents;
  (void)data;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  char buf[256];
  return (int)recv(fd, buf, sizeof buf, 0);
}

static int on_tcp(int fd, int revents, void *data) {
  (void)revents;
  (void)data;
  return close(accept(fd, NULL, NULL));
}

int main(void) {
  int dgram = socket(AF_UNIX, SOCK_DGRAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, "/run/svc.sock", sizeof addr.sun_path - 1);
  int one = 1;
  setsockopt(dgram, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  bind(dgram, (struct sockaddr *)&addr, sizeof addr);
  loop_add(dgram, POLLIN, NULL, on_datagram);

  int tcp = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(8080)};
  bind(tcp, (struct sockaddr *)&in, sizeof in);
  listen(tcp, 16);
  loop_add(tcp, POLLIN, NULL, on_tcp);
  loop_run();
}
