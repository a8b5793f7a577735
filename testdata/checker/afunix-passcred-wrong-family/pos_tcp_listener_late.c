// A TCP listener that gets SO_PASSCRED after listen(), and each connection after accept(): the
// option never delivered credentials on an inet socket, and since 6.16 setsockopt() fails with
// EOPNOTSUPP (measured on 6.18, TCP listener after listen() and UDP6: EOPNOTSUPP). That failure
// is this rule's finding; afunix-passcred-too-late, whose windows exist only on AF_UNIX sockets,
// says nothing (the runner fails on any finding not marked here).
#define _GNU_SOURCE
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int serve_tcp(unsigned short port) {
  int one = 1;
  int lfd = socket(AF_INET, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here with AF_INET
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 16) < 0)
    return -1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family
  for (;;) {
    int cfd = accept(lfd, NULL, NULL);
    if (cfd < 0)
      continue;
    setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family
    write(cfd, "hello\n", 6);
    close(cfd);
  }
}
