// The server reads the client's hello before it enables SO_PASSCRED on the connection: on every
// connection that read gets no credentials at all (no SCM_CREDENTIALS cmsg: the reader had no
// SO_PASSCRED), and what the client sent after accept() and is still queued arrives as pid 0.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(void) {
  int one = 1;
  int listener = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  listen(listener, 8); // EXPECT-NOTE: listen() here
  for (;;) {
    int conn = accept(listener, NULL, NULL); // EXPECT-NOTE: accept() here
    char hello[16];
    if (read(conn, hello, sizeof hello) <= 0) // EXPECT-NOTE: the connection is read from here first
      continue;
    setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:5 EXPECT-MESSAGE: only after the server has read from it: on every connection that read gets no credentials at all EXPECT-SEVERITY: error
    close(conn);
  }
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(listener, 8); // EXPECT-NOTE: listen() here
