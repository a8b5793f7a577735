// vfork(): the child shares the parent's memory until it execs or _exits, so the probe must not
// count or report anything in it. One child execs itself (writes 5 in the new image), another
// just _exits. The parent's own report must show only its 4 writes.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <sys/wait.h>

extern char **environ;

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
    writes(5);
    printf("vfork+exec child wrote 5\n");
    return 0;
  }
  writes(4);
  fflush(stdout);
  char *args[] = {argv[0], "child", NULL};
  pid_t child = vfork();
  CHECK(child >= 0);
  if (child == 0) {
    execve("/proc/self/exe", args, environ);
    _exit(127);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  child = vfork();
  CHECK(child >= 0);
  if (child == 0)
    _exit(7);
  CHECK(waitpid(child, &status, 0) == child);
  printf("parent wrote 4, second child exited %d\n", WEXITSTATUS(status));
  return 0;
}
