// The listener of pos_listener_after_listen_in_callee.c, its SO_PASSCRED enabled in
// init_helper() between bind() and listen(), through the same wrapper: in time.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct server {
  int listener;
};

static int init_helper(struct server *s, const char *path);

int init(struct server *s, const char *path) {
  s->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s->listener < 0)
    return -1;
  return init_helper(s, path);
}

static int activate_credentials(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

static int init_helper(struct server *s, const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  unlink(path);
  if (bind(s->listener, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  if (activate_credentials(s->listener) < 0)
    return -1;
  return listen(s->listener, 16);
}
