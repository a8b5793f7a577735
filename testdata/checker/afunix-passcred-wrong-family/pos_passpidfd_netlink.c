// SO_PASSPIDFD is valid only on AF_UNIX (SO_PASSCRED is fine on netlink): the second
// setsockopt() fails with EOPNOTSUPP since 6.16.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif

#ifndef AF_NETLINK
#define AF_NETLINK 16
#endif

int open_uevent_socket(void) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 15 /* NETLINK_KOBJECT_UEVENT */);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_PASSPIDFD, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family EXPECT-MESSAGE: only valid on AF_UNIX)
  return fd;
}
