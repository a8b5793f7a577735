// The requesting side: a client sends its request, the server answers at once, and only then
// does the client enable SO_PASSCRED to check who answered: the reply was queued before, so it
// arrives with pid=0 uid=65534 gid=65534 (Linux 3.2+).
// PROBE-EXPECT: afunix-passcred-too-late
#include "probe_util.h"

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 0);
  int server = accept(listener, NULL, NULL);
  CHECK(server >= 0);
  CHECK(write(client, "ask", 3) == 3);
  char request[3];
  CHECK(read(server, request, sizeof request) == 3);
  CHECK(write(server, "answer", 6) == 6);
  int one = 1;
  CHECK(setsockopt(client, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0);
  char data[16];
  struct ucred cred;
  if (recv_creds(client, data, sizeof data, &cred)) // PROBE-AT: afunix-passcred-too-late
    printf("reply credentials: %s\n", cred.pid == 0 ? "pid=0 (no credentials were attached)" : "real pid");
  else
    printf("reply credentials: absent\n");
  close(client);
  close(server);
  close(listener);
  return 0;
}
