// The listener is made in init(), which calls init_helper() to bind it, make it listen and only
// then enable SO_PASSCRED through a wrapper: the order is decided in init_helper(), not in
// init(), which reaches both through its one call of init_helper().
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
  s->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (s->listener < 0)
    return -1;
  return init_helper(s, path);
}

static int activate_credentials(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT-NOTE: SO_PASSCRED is enabled here
}

static int init_helper(struct server *s, const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  unlink(path);
  if (bind(s->listener, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  if (listen(s->listener, 16) < 0) // EXPECT-NOTE: listen() here
    return -1;
  return activate_credentials(s->listener); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: listener
}

// The fix-it, as --fix applies it: enabled right before listen().
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(s->listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (listen(s->listener, 16) < 0) // EXPECT-NOTE: listen() here
