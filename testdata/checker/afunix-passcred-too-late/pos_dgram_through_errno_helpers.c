// systemd's error-handling idiom around sockets: RET_NERRNO() turns a -1 into -errno and passes
// anything else through, and log_error_errno() is a statement expression whose value is what a
// logging function returns (a negative errno, never an fd). Two sockets go through the same
// helpers: the control socket enables SO_PASSCRED before bind() (right), the log socket after
// (late). Each call of RET_NERRNO() hands back its own argument, so the control socket's early
// option does not make the log socket's late one look redundant.
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>

#define ERRNO_VALUE(val) (abs(val) & ~(1 << 30))

static inline int negative_errno(void) {
  return errno > 0 ? -errno : -EINVAL;
}

static inline int RET_NERRNO(int ret) {
  if (ret < 0)
    return negative_errno();
  return ret;
}

int log_internal(int level, int error, const char *format, ...) {
  (void)format;
  if (level > 6)
    return -ERRNO_VALUE(error);
  return -ERRNO_VALUE(error);
}

#define log_error_errno(error, ...)                                                                \
  ({                                                                                               \
    int _e = (error);                                                                              \
    log_internal(3, _e, __VA_ARGS__);                                                              \
  })

int open_control(const struct sockaddr_un *a) {
  int on = 1;
  int fd = RET_NERRNO(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd < 0)
    return log_error_errno(fd, "Failed to make the control socket: %m");
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0)
    return log_error_errno(errno, "Failed to enable SO_PASSCRED: %m");
  if (bind(fd, (const struct sockaddr *)a, sizeof *a) < 0)
    return log_error_errno(errno, "Failed to bind: %m");
  return fd;
}

static int listen_log(const struct sockaddr_un *a) {
  int fd = RET_NERRNO(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return log_error_errno(fd, "Failed to make the log socket: %m");
  if (bind(fd, (const struct sockaddr *)a, sizeof *a) < 0) // EXPECT-NOTE: bind() here
    return log_error_errno(errno, "Failed to bind: %m");
  return fd;
}

int open_log(const struct sockaddr_un *a) {
  int on = 1;
  int fd = listen_log(a); // EXPECT-NOTE: the socket is bound in this call
  if (fd < 0)
    return fd;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0) // EXPECT: afunix-passcred-too-late:7
    return log_error_errno(errno, "Failed to enable SO_PASSCRED: %m");
  return fd;
}

// The fix-it, as --fix applies it: before the log socket's bind(), after a statement that ends
// in a macro (log_error_errno()).
// EXPECT-FIXED: return log_error_errno(fd, "Failed to make the log socket: %m");
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (bind(fd, (const struct sockaddr *)a, sizeof *a) < 0) // EXPECT-NOTE: bind() here
