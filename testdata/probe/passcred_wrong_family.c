// A service manager applies SO_PASSCRED to every socket it manages, inet ones included: since
// Linux 6.16 setsockopt() fails with EOPNOTSUPP there (and it never had an effect).
// PROBE-EXPECT: afunix-passcred-wrong-family
#include "probe_util.h"
#include <netinet/in.h>

int main(void) {
  int inet = socket(AF_INET, SOCK_STREAM, 0); // PROBE-SOCKET: afunix-passcred-wrong-family stream created
  CHECK(inet >= 0);
  int one = 1;
  int r = setsockopt(inet, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // PROBE-AT: afunix-passcred-wrong-family
  // The answer depends on the kernel (6.16+: EOPNOTSUPP); both are fine here.
  printf("SO_PASSCRED on AF_INET: %s\n", r == 0 || errno == EOPNOTSUPP ? "answered" : "unexpected error");
  close(inet);
  return 0;
}
