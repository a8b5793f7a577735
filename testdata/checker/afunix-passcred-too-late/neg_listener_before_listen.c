// The right order: SO_PASSCRED on the listener before listen() (accepted sockets inherit it),
// and again on the accepted socket, which is redundant but harmless.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int serve(void) {
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  listen(lfd, 16);
  int cfd = accept(lfd, NULL, NULL);
  setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  return cfd;
}
