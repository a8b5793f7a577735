#include "monitor.h"

int main(void) {
  struct monitor *m = monitor_new_from_netlink();
  if (!m)
    return 1;
  return monitor_enable_receiving(m);
}
