#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "sd-daemon.h"

int main(void) {
  if (sd_listen_fds(1) != 1)
    return 1;
  int listener = SD_LISTEN_FDS_START; // EXPECT-NOTE: the program takes the listening socket over here
  for (;;) {
    int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC); // EXPECT-NOTE: accept() here
    if (conn < 0)
      continue;
    serve(conn);
    close(conn);
  }
}
