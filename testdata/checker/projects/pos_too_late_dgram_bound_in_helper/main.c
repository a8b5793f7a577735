#include "sock.h"

int main(void) {
  int fd = open_bound("/run/logd/dev-log"); // EXPECT-NOTE: the socket is bound in this call
  if (fd < 0)
    return 1;
  enable_credentials(fd); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: datagram socket 'fd' after bind()
  return 0;
}
