// SO_PASSCRED and SO_PASSSEC on AF_UNIX (every spelling), AF_NETLINK and AF_BLUETOOTH, and
// SO_PASSPIDFD on AF_UNIX: all valid on 6.16.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif

int setup(void) {
  int one = 1;
  int fds[5];
  fds[0] = socket(AF_UNIX, SOCK_STREAM, 0);
  fds[1] = socket(AF_LOCAL, SOCK_DGRAM, 0);
  fds[2] = socket(PF_UNIX, SOCK_SEQPACKET, 0);
  fds[3] = socket(AF_NETLINK, SOCK_RAW, 0);
  fds[4] = socket(AF_BLUETOOTH, SOCK_SEQPACKET, 0);
  setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  setsockopt(fds[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  setsockopt(fds[2], SOL_SOCKET, SO_PASSSEC, &one, sizeof one);
  setsockopt(fds[3], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  setsockopt(fds[3], SOL_SOCKET, SO_PASSSEC, &one, sizeof one);
  setsockopt(fds[4], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  setsockopt(fds[0], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof one);
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  setsockopt(sv[0], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof one);
  setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  return 0;
}
