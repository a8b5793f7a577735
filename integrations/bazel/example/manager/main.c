#include <sys/socket.h>

#include "net/net.h"
#include "options/options.h"

int main(void) {
  int control = net_open_unix("/run/manager/control");
  options_pass_credentials(control);
  listen(control, 8);
#if MANAGER_HAS_TCP  // //net's `defines`: reaches every target that depends on it
  int web = net_open_tcp(MANAGER_WEB_PORT);  // //manager's `copts`
  options_pass_credentials(web);
  listen(web, 8);
#endif
  return 0;
}
