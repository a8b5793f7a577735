// Two findings whose fix-its would both put code right before listen(): moving the listener's own
// late SO_PASSCRED there, and enabling it there for the accepted socket. Every front end applies
// the first (in source order) and none the second, whose note says so; once the first is applied
// the second finding is gone too (the listener then has SO_PASSCRED before listen()).
#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

int serve(void) {
  int one = 1;
  int l = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  listen(l, 8); // EXPECT-NOTE: listen() here
  setsockopt(l, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late
  int c = accept(l, NULL, NULL);
  setsockopt(c, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: it would overlap the fix-it for afunix-passcred-too-late at line 13; apply that one and check again
  return c;
}

// EXPECT-FIXED: int l = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
// EXPECT-FIXED: setsockopt(l, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(l, 8); // EXPECT-NOTE: listen() here
// EXPECT-FIXED: // EXPECT: afunix-passcred-too-late
// EXPECT-FIXED: int c = accept(l, NULL, NULL);
