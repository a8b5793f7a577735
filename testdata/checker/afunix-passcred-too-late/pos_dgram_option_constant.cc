// The option is a constant of the project's own (constexpr int kCredentialsOption =
// SO_PASSCRED), not the macro itself. The datagram server binds first and enables it after:
// datagrams queued in between arrive with pid=0 uid=65534. The constant is SO_PASSCRED, as its
// initialiser is spelled.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {
constexpr int kCredentialsOption = SO_PASSCRED;
}

int OpenLogSocket(const char *path) {
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return -1;
  int on = 1;
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) < 0) { // EXPECT-NOTE: bind() here
    close(fd);
    return -1;
  }
  if (setsockopt(fd, SOL_SOCKET, kCredentialsOption, &on, sizeof on) < 0) { // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: datagram socket 'fd' after bind()
    close(fd);
    return -1;
  }
  return fd;
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: if (setsockopt(fd, SOL_SOCKET, kCredentialsOption, &on, sizeof on) < 0) { // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: datagram socket 'fd' after bind()
// EXPECT-FIXED: close(fd);
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: }
// EXPECT-FIXED: if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) < 0) { // EXPECT-NOTE: bind() here
