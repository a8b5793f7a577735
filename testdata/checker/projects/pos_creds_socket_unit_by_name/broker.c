#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sd-daemon.h"
#include "serve.h"

int main(void) {
  char **names = NULL;
  int control_fd = -1, metrics_fd = -1;
  int n = sd_listen_fds_with_names(1, &names);
  for (int i = 0; i < n; ++i) {
    int fd = SD_LISTEN_FDS_START + i;
    if (strcmp(names[i], "control") == 0)
      control_fd = fd; // EXPECT-NOTE: the program takes the listening socket over here
    else if (strcmp(names[i], "metrics") == 0)
      metrics_fd = fd;
  }
  for (;;) {
    int conn = accept4(control_fd, NULL, NULL, SOCK_CLOEXEC);
    if (conn >= 0)
      serve(conn);
    int metrics = accept4(metrics_fd, NULL, NULL, SOCK_CLOEXEC);
    if (metrics >= 0)
      serve(metrics);
  }
}
