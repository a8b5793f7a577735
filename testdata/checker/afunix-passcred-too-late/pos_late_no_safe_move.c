// SO_PASSCRED set after listen() where moving the call above listen() would change the program:
// no fix-it, and the finding's note says why. Each listener is its own socket.
#define _GNU_SOURCE
#include <sys/socket.h>

int want_credentials(void);
void log_value(int value);

// The value comes from a call made after listen(): it cannot move, and a fix-it that brought its
// own value (1) would decide what the program computes at run time.
int from_config(void) {
  int on;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(fd, 16);
  on = want_credentials();
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: moving it above listen() is not safe: 'on' is changed between them on line 15
  return fd;
}

// The call is a jump target: moved above listen(), the label would go with it and the jump would
// skip listen().
int across_label(int quick) {
  int on;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  on = quick;
  if (quick)
    goto ready;
  listen(fd, 16);
ready:
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: moving it above listen() is not safe: a label (a jump target) lies between them on line 29
  return fd;
}

// A preprocessor conditional between them: what is compiled between them depends on it.
int across_conditional(void) {
  int on;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(fd, 16);
#ifdef NO_CREDENTIALS
  on = 0;
#else
  on = 1;
#endif
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: moving it above listen() is not safe: a preprocessor directive lies between them on line 43
  return fd;
}

// listen() inside a macro: there is no statement of the block to put the call before.
#define LISTEN_OR_FAIL(s) do { if (listen(s, 16) < 0) return -1; } while (0)
int listen_in_macro(void) {
  int on;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  LISTEN_OR_FAIL(fd);
  on = want_credentials();
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: it or listen() is not a whole statement of a block
  return fd;
}

// `on = 1;` could move with the call, but code between them reads `on`.
int value_read_between(void) {
  int on;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(fd, 16);
  on = 1;
  log_value(on);
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: moving it above listen() is not safe: 'on' is changed between them on line 64
  return fd;
}

// `on` is also reached through a pointer: a write through it between them may change it.
int through_pointer(void) {
  int on;
  int *alias = &on;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(fd, 16);
  *alias = want_credentials();
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: moving it above listen() is not safe: a call or pointer write between them on line 76 may change 'on'
  return fd;
}
