#include <stdio.h>

#include "usage.h"

// Names nothing the sockets go through: never parsed (the run with --no-prefilter parses it and
// must find the same).
int usage(const char *program) {
  fprintf(stderr, "usage: %s SOCKET CLIENTS\n", program);
  return 2;
}
