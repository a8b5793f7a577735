#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "sd-daemon.h"

int handle(int conn);

int main(void) {
  int one = 1;
  if (sd_listen_fds(0) < 1)
    return 1;
  for (;;) {
    int conn = accept(SD_LISTEN_FDS_START, NULL, NULL); // EXPECT-NOTE: accept() here
    if (conn < 0)
      continue;
    setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:5 EXPECT-MESSAGE: accepted socket 'conn' only after accept()
    handle(conn);
    close(conn);
  }
}
