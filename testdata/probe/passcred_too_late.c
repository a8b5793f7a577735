// A daemon enables SO_PASSCRED on the accepted socket, after the client already wrote: the
// message arrives with pid=0 uid=65534 gid=65534 (Linux 3.2+). The client writes after accept():
// data queued on a not-yet-accepted (embryo) socket gets credentials anyway on 6.16+.
// PROBE-EXPECT: afunix-passcred-too-late
#include "probe_util.h"

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 0);
  int server = accept(listener, NULL, NULL); // PROBE-SOCKET: afunix-passcred-too-late stream accepted
  CHECK(server >= 0);
  CHECK(write(client, "hello", 5) == 5);
  int one = 1;
  CHECK(setsockopt(server, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0);
  char data[16];
  struct ucred cred;
  if (recv_creds(server, data, sizeof data, &cred)) // PROBE-AT: afunix-passcred-too-late
    printf("credentials: %s\n", cred.pid == 0 ? "pid=0 (no credentials were attached)" : "real pid");
  else
    printf("credentials: absent\n");
  close(client);
  close(server);
  close(listener);
  return 0;
}
