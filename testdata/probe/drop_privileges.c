// A server that starts as root and forks a worker that drops to nobody (as nginx and sshd do)
// before it makes its AF_UNIX calls. The worker's report must still arrive: `afunix-probe run`
// makes its report directory writable for it, and the worker, which can no longer rewrite the
// report file it created as root, starts a new one. Not root: the worker keeps its user.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <grp.h>
#include <sys/wait.h>

int main(void) {
  fflush(stdout);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    if (geteuid() == 0) {
      CHECK(setgroups(0, NULL) == 0);
      CHECK(setgid(65534) == 0);
      CHECK(setuid(65534) == 0);
    }
    int sv[2];
    char c;
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    for (int i = 0; i < 3; ++i) {
      CHECK(write(sv[0], "w", 1) == 1);
      CHECK(read(sv[1], &c, 1) == 1);
    }
    exit(0);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("worker exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
