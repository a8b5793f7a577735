#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

int hand_over(int left, int right) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
    return -1;
  int r = send_fd(left, sv[0]) | send_fd(right, sv[1]);
  close(sv[0]);
  close(sv[1]);
  return r;
}
