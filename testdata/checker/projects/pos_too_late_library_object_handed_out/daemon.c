#include "monitor.h"

int main(void) {
  struct monitor *kernel = monitor_new_from_netlink();
  if (!kernel)
    return 1;
  return monitor_enable_receiving(kernel);
}
