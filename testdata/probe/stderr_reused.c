// A program that closes stderr and opens its data file in its place (fd 2), as some daemons do
// when they detach. The probe's exit report must not be appended to that data file.
// `stderr_reused FILE` uses FILE; without an argument, /dev/null.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <fcntl.h>

int main(int argc, char **argv) {
  close(2);
  int fd = open(argc > 1 ? argv[1] : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0600);
  CHECK(fd == 2);
  CHECK(write(2, "data\n", 5) == 5);
  int sv[2];
  char c;
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  CHECK(write(sv[0], "x", 1) == 1);
  CHECK(read(sv[1], &c, 1) == 1);
  printf("stderr replaced by a data file\n");
  return 0;
}
