// OPTIONS: --pedantic
// neg_listener_after_listen_unread.c with --pedantic: the listener-after-listen finding is
// withheld, and a note says why: nothing reads SCM_CREDENTIALS from the connections (the server
// uses SO_PEERCRED, which does not depend on SO_PASSCRED).
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int open_listener(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  listen(fd, 16);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-SEVERITY: note EXPECT-MESSAGE: enabled late on 'fd' (listener-after-listen), but the program loses no credentials by it: nothing in the program reads SCM_CREDENTIALS, and none of the connections accepted on it is handed to code outside the program
  return fd;
}

static void serve_client(int conn) {
  struct ucred peer;
  socklen_t len = sizeof peer;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.uid == 0) {
    char line[256];
    while (read(conn, line, sizeof line) > 0)
      write(conn, "ok\n", 3);
  }
  close(conn);
}

int main(void) {
  int listener = open_listener("/run/player.sock");
  for (;;) {
    int conn = accept(listener, NULL, NULL); // EXPECT-NOTE: a connection accepted here, never read for credentials
    if (conn >= 0)
      serve_client(conn);
  }
}
