#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

void hand_out(int peer, int clients) {
  for (int i = 0; i < clients; i++) { // EXPECT-NOTE: loop here
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    send_fd(peer, pair[1]); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX socket 'pair[1]'
    close(pair[1]);
  }
}
