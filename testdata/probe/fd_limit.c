// An fd-passing helper sized for 256 fds: the kernel refuses more than SCM_MAX_FD (253) in one
// message with EINVAL.
// PROBE-EXPECT: afunix-fd-limit
#include "probe_util.h"

int main(void) {
  int sv[2], pipefd[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0); // PROBE-SOCKET: afunix-fd-limit dgram socketpair
  CHECK(pipe(pipefd) == 0);
  ssize_t r = send_fds(sv[0], pipefd[0], 256); // PROBE-AT: afunix-fd-limit
  printf("sendmsg with 256 fds: %s\n", r < 0 && errno == EINVAL ? "EINVAL" : "accepted");
  CHECK(send_fds(sv[0], pipefd[0], 253) == 1);
  printf("sendmsg with 253 fds: accepted, %d received\n", recv_and_close_fds(sv[1]));
  close(pipefd[0]);
  close(pipefd[1]);
  close(sv[0]);
  close(sv[1]);
  return 0;
}
