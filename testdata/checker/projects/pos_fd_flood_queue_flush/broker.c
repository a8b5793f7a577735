#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "sender.h"

// Every client connection is queued for the worker, and the queue is flushed once the listener
// has nothing more: each flush puts all of them in flight, nothing waits for the worker.
void hand_out(struct sender *worker, int clients) {
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0 || listen(listener, 128) < 0)
    return;
  for (int i = 0; i < clients; i++) { // EXPECT-NOTE: loop here
    int client = accept4(listener, 0, 0, SOCK_CLOEXEC); // EXPECT-NOTE: socket created here
    if (client < 0)
      break;
    sender_put(worker, client); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX socket 'client' over 's->fd' queued in a loop (with 'sender_put', sent by 'sender_flush')
  }
  sender_flush(worker);
}
