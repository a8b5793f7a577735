// A messaging library seen only through its header (skalibs' unixmessage style, under the
// project's own names): msgq_put() queues a message, msgq_flush() sends each queued message with
// all its fds in one sendmsg(). Bodies not here.
#pragma once
#include <stddef.h>

struct msgq_message {
  char *data;
  size_t len;
  int *fd;
  unsigned int nfd;
};

struct msgq;
int msgq_put(struct msgq *q, const struct msgq_message *m);
int msgq_flush(struct msgq *q);

#define MSGQ_MAXFDS 253
