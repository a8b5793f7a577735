// A setsockopt() helper that takes its level and option from the caller (systemd's
// setsockopt_int() under socket_set_option()): 16 is SO_PASSCRED only at SOL_SOCKET; at
// IPPROTO_IPV6 it is IPV6_UNICAST_HOPS. Setting the hop limit of a UDP socket enables nothing.
#include <netinet/in.h>
#include <sys/socket.h>

static int setsockopt_int(int fd, int level, int option, int value) {
  if (setsockopt(fd, level, option, &value, sizeof value) < 0)
    return -1;
  return 0;
}

static int socket_set_option(int fd, int af, int opt_ipv4, int opt_ipv6, int value) {
  switch (af) {
  case AF_INET:
    return setsockopt_int(fd, IPPROTO_IP, opt_ipv4, value);
  case AF_INET6:
    return setsockopt_int(fd, IPPROTO_IPV6, opt_ipv6, value);
  default:
    return -1;
  }
}

int open_udp6(void) {
  int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  socket_set_option(fd, AF_INET6, IP_TTL, IPV6_UNICAST_HOPS, 64);
  return fd;
}
