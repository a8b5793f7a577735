// The right way round: SO_PASSCRED on the listener before listen(), fds passed and received,
// plain reads and writes. The probe must stay silent.
// PROBE-EXPECT: none
#include "probe_util.h"

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 1);
  CHECK(write(client, "hello", 5) == 5);
  int server = accept(listener, NULL, NULL);
  CHECK(server >= 0);
  char data[16];
  struct ucred cred;
  int got = recv_creds(server, data, sizeof data, &cred);
  printf("credentials: %s\n", got && cred.pid == getpid() ? "present, pid matches" : "wrong");

  int sv[2], pipefd[2];
  CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
  CHECK(pipe(pipefd) == 0);
  for (int i = 0; i < 4; ++i)
    CHECK(send_fds(sv[0], pipefd[0], 2) == 1);
  int received = 0;
  for (int i = 0; i < 4; ++i)
    received += recv_and_close_fds(sv[1]);
  printf("passed %d fds, all received\n", received);
  for (int i = 0; i < 10; ++i) {
    char c = (char)('0' + i), back;
    CHECK(write(sv[0], &c, 1) == 1);
    CHECK(read(sv[1], &back, 1) == 1 && back == c);
  }
  printf("10 round trips\n");
  close(pipefd[0]);
  close(pipefd[1]);
  close(sv[0]);
  close(sv[1]);
  close(client);
  close(server);
  close(listener);
  return 0;
}
