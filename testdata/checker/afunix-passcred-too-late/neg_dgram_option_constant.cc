// The constants of pos_dgram_option_constant.cc: the one that is SO_PASSCRED is enabled before
// bind(), and the one set after bind() is SO_REUSEADDR, which has nothing to do with credentials.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {
constexpr int kCredentialsOption = SO_PASSCRED;
const int kReuseOption = SO_REUSEADDR;
}

int OpenLogSocket(const char *path) {
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, kCredentialsOption, &on, sizeof on) < 0) {
    close(fd);
    return -1;
  }
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) < 0) {
    close(fd);
    return -1;
  }
  setsockopt(fd, SOL_SOCKET, kReuseOption, &on, sizeof on);
  return fd;
}
