// One helper applies the credential options to every socket, whatever its family: the call
// with the UDP socket makes the helper's setsockopt() fail on 6.16.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int apply_pass_options(int fd) {
  int one = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSSEC, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family EXPECT-MESSAGE: SO_PASSSEC on socket 'fd' created with PF_INET6
}

int setup(void) {
  int local = socket(AF_UNIX, SOCK_DGRAM, 0);
  int udp = socket(PF_INET6, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here with PF_INET6
  apply_pass_options(local);
  apply_pass_options(udp); // EXPECT-NOTE: the socket is passed here
  return 0;
}
