// A socketpair() whose reading end enables SO_PASSCRED only after its peer wrote: that message
// arrives with pid=0 uid=65534 gid=65534 (Linux 3.2+). Not an accepted socket, not bound: the
// finding says socketpair end.
// PROBE-EXPECT: afunix-passcred-too-late
#include "probe_util.h"

int main(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0); // PROBE-SOCKET: afunix-passcred-too-late dgram socketpair
  CHECK(write(sv[0], "hi", 2) == 2);
  int one = 1;
  CHECK(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0);
  char data[16];
  struct ucred cred;
  if (recv_creds(sv[1], data, sizeof data, &cred)) // PROBE-AT: afunix-passcred-too-late
    printf("credentials: %s\n", cred.pid == 0 ? "pid=0 (no credentials were attached)" : "real pid");
  else
    printf("credentials: absent\n");
  close(sv[0]);
  close(sv[1]);
  return 0;
}
