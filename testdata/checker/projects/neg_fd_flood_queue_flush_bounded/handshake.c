#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "sender.h"

// One socket per client handshake, queued once (as skalibs' skaclient_server_ack()).
int handshake(struct sender *client) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
    return -1;
  if (sender_put(client, pair[0]) < 0)
    return -1;
  close(pair[0]);
  return sender_flush(client);
}

// Queued in a loop, but flushed and acknowledged on the same connection each turn (as s6's
// s6_fdholder_setdump()).
int hand_out(struct sender *worker, int clients) {
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0 || listen(listener, 128) < 0)
    return -1;
  for (int i = 0; i < clients; i++) {
    int client = accept4(listener, 0, 0, SOCK_CLOEXEC);
    if (client < 0)
      return -1;
    sender_put(worker, client);
    if (sender_flush(worker) < 0)
      return -1;
    close(client);
    char ack;
    if (recv(worker->fd, &ack, 1, 0) != 1)
      return -1;
  }
  return 0;
}
