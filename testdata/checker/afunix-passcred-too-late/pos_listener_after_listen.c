// SO_PASSCRED on the listener after listen(): since 6.16 accepted sockets inherit the flag at
// connect(), so clients that connected in between never get it.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct daemon {
  int listen_fd;
};

int daemon_start(struct daemon *d) {
  d->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  listen(d->listen_fd, 32); // EXPECT-NOTE: listen() here
  int one = 1;
  setsockopt(d->listen_fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: listener 'd->listen_fd' after listen(), before any accept() EXPECT-SEVERITY: note
  return d->listen_fd;
}

// The fix-it (the late call uses `one`, defined after listen() with a constant: the definition
// moves along), as --fix applies it:
// EXPECT-FIXED: d->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
// EXPECT-FIXED: int one = 1;
// EXPECT-FIXED: setsockopt(d->listen_fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(d->listen_fd, 32); // EXPECT-NOTE: listen() here
// EXPECT-FIXED: // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: listener 'd->listen_fd' after listen(), before any accept() EXPECT-SEVERITY: note
// EXPECT-FIXED: return d->listen_fd;
