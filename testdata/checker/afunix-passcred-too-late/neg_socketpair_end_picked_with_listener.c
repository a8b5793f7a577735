// A daemon has two endpoints, its listener and one end of a socketpair() (a wake-up channel), and
// one helper starts the endpoint a run-time choice picks, so the analysis cannot tell which of the
// two reaches its listen(). The listener enables
// SO_PASSCRED after listen(), but nothing in the program reads SCM_CREDENTIALS (withheld, as in
// neg_listener_after_listen_unread.c), and a socketpair() end never listens: listen() on it fails
// (experiment accept_needs_listener), so the listen() the pointer links it to is not its own. No
// finding.
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct endpoint {
  int fd;
  bool server;
};

static struct endpoint listener, wakeup;

static struct endpoint *pick(bool server) { return server ? &listener : &wakeup; }

static void start(struct endpoint *e) {
  listen(e->fd, 16);
  int one = 1;
  setsockopt(e->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}

int main(int argc, char **argv) {
  listener.fd = socket(AF_UNIX, SOCK_STREAM, 0);
  listener.server = true;
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = "/run/daemon.sock"};
  bind(listener.fd, (struct sockaddr *)&addr, sizeof addr);
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  wakeup.fd = sv[0];
  start(pick(argc < 2 || argv[1][0] != 'w'));
  for (;;) {
    int conn = accept(listener.fd, NULL, NULL);
    char line[128];
    while (read(conn, line, sizeof line) > 0)
      write(sv[1], "x", 1);
    close(conn);
  }
}
