// systemd-style: every socket is bound through one helper (mac_selinux_bind() labels the path
// first), the notify socket and a UDP socket alike. The notify socket's SO_PASSCRED comes after
// the helper bound it: late. A fix-it inside the helper would enable SO_PASSCRED on the UDP socket
// too (EOPNOTSUPP since 6.16), so there is none; the caller is where it belongs.
#define _GNU_SOURCE
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int label_and_bind(int fd, const struct sockaddr *addr, socklen_t len) {
  return bind(fd, addr, len); // EXPECT-NOTE: bind() here
}

int setup_notify(void) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  strcpy(sa.sun_path, "/run/notify");
  if (label_and_bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) // EXPECT-NOTE: the socket is bound in this call
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-NOTE: no fix-it: enabling it before bind() there would enable it on every other socket
  return fd;
}

int setup_udp(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(5353)};
  return label_and_bind(fd, (struct sockaddr *)&in, sizeof in) < 0 ? -1 : fd;
}

int main(void) {
  char buf[64];
  int notify = setup_notify(), udp = setup_udp();
  recv(notify, buf, sizeof buf, 0);
  return (int)recv(udp, buf, sizeof buf, 0);
}
