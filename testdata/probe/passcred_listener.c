// A daemon enables SO_PASSCRED on its listener only after listen(); a client connected in between.
// Since Linux 6.16 an accepted socket takes the listener's flags at connect(): this connection has
// no SO_PASSCRED, and its credentials never arrive (3.12-6.15 copied the flag at accept()). The
// finding is at the accept() and names the listener.
// PROBE-EXPECT: afunix-passcred-too-late
#include "probe_util.h"

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 0);
  int one = 1;
  CHECK(setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0);
  int server = accept(listener, NULL, NULL); // PROBE-AT: afunix-passcred-too-late PROBE-SOCKET: afunix-passcred-too-late stream accepted
  CHECK(server >= 0);
  int has = 0;
  socklen_t len = sizeof has;
  CHECK(getsockopt(server, SOL_SOCKET, SO_PASSCRED, &has, &len) == 0);
  CHECK(write(client, "hello", 5) == 5);
  char data[16];
  struct ucred cred;
  int got = recv_creds(server, data, sizeof data, &cred);
  printf("listener fd %d; accepted socket SO_PASSCRED=%d; credentials %s\n", listener, has,
         got ? "arrived" : "absent");
  close(client);
  close(server);
  close(listener);
  return 0;
}
