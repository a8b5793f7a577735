// Two findings whose fix-its would both put code right before listen(): moving the listener's own
// late SO_PASSCRED there (it comes after an accept()), and enabling it there for the socket that
// accept() returned. Every front end applies the first (in source order) and none the second,
// whose note says so; once the first is applied the second finding is gone too (the listener then
// has SO_PASSCRED before listen()). (With the listener's option before the accept(), the accepted
// socket would get no finding of its own: the listener's covers it.)
#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

int serve(void) {
  int one = 1;
  int l = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  listen(l, 8); // EXPECT-NOTE: listen() here
  int c = accept(l, NULL, NULL);
  setsockopt(l, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late
  setsockopt(c, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: it would overlap the fix-it for afunix-passcred-too-late at line 16; apply that one and check again
  return c;
}

// EXPECT-FIXED: int l = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
// EXPECT-FIXED: setsockopt(l, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(l, 8); // EXPECT-NOTE: listen() here
// EXPECT-FIXED: int c = accept(l, NULL, NULL);
// EXPECT-FIXED: setsockopt(c, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-NOTE: no fix-it: it would overlap the fix-it for afunix-passcred-too-late at line 16; apply that one and check again
