// pos_dgram_returned_by_statement_expression.c fixed: the helper enables SO_PASSCRED before
// bind(), and the caller's TAKE_FD() hand-off keeps the socket it made.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define TAKE_GENERIC(var, type, nullvalue)                                                         \
  ({                                                                                               \
    type *_pvar_ = &(var);                                                                         \
    type _var_ = *_pvar_;                                                                          \
    type _nullvalue_ = nullvalue;                                                                  \
    *_pvar_ = _nullvalue_;                                                                         \
    _var_;                                                                                         \
  })
#define TAKE_FD(fd) TAKE_GENERIC(fd, int, -1)

static int bind_dgram(const char *path) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
    close(fd);
    return -1;
  }
  return TAKE_FD(fd);
}

int main(void) {
  int fd = bind_dgram("/run/log.sock");
  if (fd < 0)
    return 1;
  char buf[256];
  return (int)recv(fd, buf, sizeof buf, 0);
}
