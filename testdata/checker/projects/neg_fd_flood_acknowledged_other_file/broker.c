#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

void hand_out(int peer, int clients) {
  for (int i = 0; i < clients; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
      return;
    send_fd(peer, pair[1]);
    close(pair[1]);
    if (recv_ack(peer) < 0)
      return;
  }
}
