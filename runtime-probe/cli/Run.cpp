#include "Commands.h"

#include <cstdio>

namespace afunix::probe {

// Placeholder until the sub-command lands; fails loudly rather than pretending to work.
int runCommand(int, char **) {
  std::fputs("afunix-probe: this command is not built yet\n", stderr);
  return 2;
}

} // namespace afunix::probe
