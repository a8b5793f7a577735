// posix_spawn() of a child with an environment that lacks LD_PRELOAD and AFUNIX_PROBE_DIR: the
// probe puts them back, so the child (2 writes) reports as well as the parent (1 write).
// PROBE-EXPECT: none
#include "probe_util.h"
#include <spawn.h>
#include <sys/wait.h>

static void writes(int count) {
  int sv[2];
  char c;
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  for (int i = 0; i < count; ++i) {
    CHECK(write(sv[0], "x", 1) == 1);
    CHECK(read(sv[1], &c, 1) == 1);
  }
  close(sv[0]);
  close(sv[1]);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "child")) {
    writes(2);
    printf("spawned child wrote 2\n");
    return 0;
  }
  writes(1);
  fflush(stdout);
  char *args[] = {argv[0], "child", NULL};
  char *env[] = {"PATH=/usr/bin:/bin", NULL};
  pid_t child;
  CHECK(posix_spawn(&child, "/proc/self/exe", NULL, NULL, args, env) == 0);
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("parent wrote 1, child exited %d\n", WEXITSTATUS(status));
  return 0;
}
