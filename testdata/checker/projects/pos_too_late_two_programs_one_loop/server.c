// The daemon: the library's authenticated AF_UNIX service.
#include "ipc.h"

int main(void) {
  struct loop l = {0};
  if (ipc_publish(&l, "/run/authd.sock") < 0)
    return 1;
  loop_run(&l);
  return 0;
}
