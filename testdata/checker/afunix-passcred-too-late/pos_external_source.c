// OPTIONS: --config=testdata/checker/afunix-passcred-too-late/external_sources.yaml
// take_inherited_socket() (configured in ExternalSocketSources) returns a socket some other
// process made; how it was handed over is not known, so the advice is the general one.
#define _GNU_SOURCE
#include <sys/socket.h>

int take_inherited_socket(void);

int setup(void) {
  int one = 1;
  int fd = take_inherited_socket(); // EXPECT-NOTE: the socket comes from outside the program here
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: that came from outside (take_inherited_socket()) EXPECT-MESSAGE: have the socket's creator enable it
  return fd;
}
