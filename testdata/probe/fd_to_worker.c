// A dispatcher hands 3000 sockets to a worker process over a connection and waits for an
// acknowledgement every 100: the worker receives each at once, so the kernel never holds more
// than 100 of them in flight. The receiver is in another process, where the probe cannot see the
// receives; it asks the kernel instead (SIOCOUTQ on the socket they went over), and reports no
// flood. Sent minus received by this process would say 3000.
// PROBE-EXPECT: none
#include "probe_util.h"

#include <sys/wait.h>

#define SENDS 3000
#define BATCH 100

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 0);
  pid_t worker = fork();
  CHECK(worker >= 0);
  if (worker == 0) {
    close(client);
    int conn = accept(listener, NULL, NULL);
    CHECK(conn >= 0);
    for (int i = 0; i < SENDS; ++i) {
      CHECK(recv_and_close_fds(conn) == 1);
      if (i % BATCH == BATCH - 1)
        CHECK(write(conn, "k", 1) == 1);
    }
    _exit(0);
  }
  close(listener);
  int passed[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, passed) == 0);
  for (int i = 0; i < SENDS; ++i) {
    CHECK(send_fds(client, passed[0], 1) == 1);
    char ack;
    if (i % BATCH == BATCH - 1)
      CHECK(read(client, &ack, 1) == 1);
  }
  int status;
  CHECK(waitpid(worker, &status, 0) == worker && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  printf("%d sockets handed to the worker, %d at a time at most\n", SENDS, BATCH);
  close(client);
  close(passed[0]);
  close(passed[1]);
  return 0;
}
