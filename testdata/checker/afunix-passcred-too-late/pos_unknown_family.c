// A listener made from getaddrinfo(): socket(ai->ai_family, ...) names no family, nothing binds
// it to a sun_path, and nothing in the program reads credentials from it or its connections. It
// may well be a TCP socket, where SO_PASSCRED never delivered anything (and fails with EOPNOTSUPP
// since 6.16): the late option is a note that says both, not a warning.
#define _GNU_SOURCE
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

int serve(const char *host, const char *service) {
  struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *ai;
  if (getaddrinfo(host, service, &hints, &ai) != 0)
    return -1;
  int lfd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
  if (lfd < 0 || bind(lfd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(lfd, 16) < 0)
    return -1;
  int one = 1;
  for (;;) {
    int cfd = accept(lfd, NULL, NULL);
    if (cfd < 0)
      continue;
    setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-SEVERITY: note EXPECT-MESSAGE: on 'cfd' after accept(), but nothing shows it is an AF_UNIX socket EXPECT-MESSAGE: on an AF_UNIX socket messages the client sends between accept() and this call arrive with pid=0
    write(cfd, "hello\n", 6);
    close(cfd);
  }
}
