#include <sys/socket.h>

#include "net/net.h"
#include "options/options.h"

int main(void) {
  int control = net_open_unix("/run/manager/control");
  int web = net_open_tcp(8080);
  options_pass_credentials(control);
  options_pass_credentials(web);
  listen(control, 8);
  listen(web, 8);
  return 0;
}
