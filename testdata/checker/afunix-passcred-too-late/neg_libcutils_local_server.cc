// libcutils' socket_local_server() sockets (the built-in model catalog, models/sockets.yaml) used
// without SO_PASSCRED, and one whose option is set on a socket the program made and bound itself,
// in time.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern "C" int socket_local_server(const char *name, int namespaceId, int type);
#define ANDROID_SOCKET_NAMESPACE_RESERVED 1

int open_control() { return socket_local_server("control", ANDROID_SOCKET_NAMESPACE_RESERVED, SOCK_SEQPACKET); }

int open_events(const char *path) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
    return -1;
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}
