#include "msgq.h"

// Hands every held fd back, in chunks of MSGQ_MAXFDS: 253 fds, the kernel's limit per message.
int dump(struct msgq *q, int *fds, unsigned int n) {
  while (n) {
    unsigned int chunk = n > MSGQ_MAXFDS ? MSGQ_MAXFDS : n;
    struct msgq_message m = {.data = "", .len = 1, .fd = fds, .nfd = chunk};
    if (msgq_put(q, &m) < 0)
      return -1;
    fds += chunk;
    n -= chunk;
  }
  return msgq_flush(q);
}

// A table of messages filled field by field: none past the limit.
int dump_table(struct msgq *q, int *fds, unsigned int n) {
  struct msgq_message table[4];
  for (unsigned int i = 0; i < 4; i++) {
    table[i].data = "";
    table[i].len = 1;
    table[i].fd = fds + i * 200;
    table[i].nfd = i == 0 ? MSGQ_MAXFDS : 200;
  }
  for (unsigned int i = 0; i < 4 && i * 200 < n; i++)
    if (msgq_put(q, table + i) < 0)
      return -1;
  return msgq_flush(q);
}

// One fd per message: nothing near the limit.
int hand_one(struct msgq *q, int fd) {
  struct msgq_message m = {.data = "", .len = 1, .fd = &fd, .nfd = 1};
  if (msgq_put(q, &m) < 0)
    return -1;
  return msgq_flush(q);
}
