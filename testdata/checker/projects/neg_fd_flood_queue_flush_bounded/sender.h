#pragma once
#define SENDER_MAX 4096

struct sender {
  int fd;
  int fds[SENDER_MAX];
  unsigned n;
};

int sender_put(struct sender *s, int fd);
int sender_flush(struct sender *s);
