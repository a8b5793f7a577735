// SO_PASSCRED on the listener only after it has accepted the supervisor's connection: that
// connection never inherits it (on every kernel since 3.12), so whatever the supervisor sends
// arrives without credentials; a window of connections, not of instructions.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

int serve(int listener) {
  int one = 1;
  listen(listener, 8); // EXPECT-NOTE: listen() here
  int supervisor = accept(listener, NULL, NULL); // EXPECT-NOTE: connections accepted here may come before SO_PASSCRED is enabled
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: after it may already have accepted connections EXPECT-SEVERITY: error
  return supervisor;
}

int main(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  return serve(fd) < 0;
}

// The fix-it (the late call uses `one`, declared before listen(); it moves), as --fix applies it:
// EXPECT-FIXED: setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(listener, 8); // EXPECT-NOTE: listen() here
