// neg_listener_after_listen_unread.c, but each connection is also handed to a function of the
// project whose body the analysis does not have (defined in a file outside the compile database):
// it may read SCM_CREDENTIALS, so the listener's late option may lose them and the finding stays.
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
  listen(fd, 16); // EXPECT-NOTE: listen() here
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: after listen(), before any accept()
  return fd;
}

void session_attach(int conn); // elsewhere in the project

static void serve_client(int conn) {
  session_attach(conn);
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
    int conn = accept(listener, NULL, NULL);
    if (conn >= 0)
      serve_client(conn);
  }
}

// The fix-it (the late call and `one` move above listen()), as --fix applies it:
// EXPECT-FIXED: int one = 1;
// EXPECT-FIXED: setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(fd, 16); // EXPECT-NOTE: listen() here
