// A test tool of the same database: its own AF_UNIX listener, without SO_PASSCRED, on the
// library's loop, read by its own callback (no credentials wanted).
#include "loop.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void on_probe(struct loop *l, int fd, void *data) {
  (void)l;
  (void)data;
  char buf[64];
  int conn = accept(fd, NULL, NULL);
  if (conn < 0)
    return;
  if (read(conn, buf, sizeof(buf)) > 0)
    write(conn, "ok\n", 3);
  close(conn);
}

int main(void) {
  struct loop l = {0};
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  strcpy(addr.sun_path, "/run/authd-probe.sock");
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 4) < 0)
    return 1;
  loop_add(&l, fd, on_probe, NULL);
  loop_run(&l);
  return 0;
}
