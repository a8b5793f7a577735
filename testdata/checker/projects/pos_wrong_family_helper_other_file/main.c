#include <sys/socket.h>

#include "net.h"

int main(void) {
  int control = open_unix("/run/manager/ctl");
  int web = open_tcp(8080);
  apply_pass_credentials(control);
  apply_pass_credentials(web); // EXPECT-NOTE: the socket is passed here
  listen(control, 8);
  listen(web, 8);
  return 0;
}
