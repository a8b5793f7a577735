// Process tree: the parent writes once; a forked child writes twice, then execs itself with an
// environment that has lost LD_PRELOAD and AFUNIX_PROBE_DIR (the probe must put them back); the
// new image writes three times. Each image reports on its own: writes 1, 2 and 3.
// PROBE-EXPECT: none
#include "probe_util.h"
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
  if (argc > 1 && !strcmp(argv[1], "exec-child")) {
    writes(3);
    printf("exec'd image wrote 3\n");
    return 0;
  }
  writes(1);
  fflush(stdout);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    writes(2);
    char *args[] = {argv[0], "exec-child", NULL};
    char *env[] = {"PATH=/usr/bin:/bin", NULL};
    execve("/proc/self/exe", args, env);
    _exit(127);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("parent wrote 1, child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
