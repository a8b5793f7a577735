// An example program of the same database: a TCP echo server on the library's loop.
#include "loop.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static void echo(struct loop *l, int fd, void *data) {
  (void)l;
  (void)data;
  char buf[256];
  ssize_t n = read(fd, buf, sizeof(buf));
  if (n <= 0)
    close(fd);
  else
    write(fd, buf, (size_t)n);
}

static void on_connection(struct loop *l, int fd, void *data) {
  (void)data;
  int conn = accept(fd, NULL, NULL);
  if (conn >= 0)
    loop_add(l, conn, echo, NULL);
}

int main(void) {
  struct loop l = {0};
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(7007)};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 16) < 0)
    return 1;
  loop_add(&l, fd, on_connection, NULL);
  loop_run(&l);
  return 0;
}
