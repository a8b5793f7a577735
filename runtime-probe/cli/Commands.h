// Sub-commands of afunix-probe, each in its own file. Each returns the process exit status.
#pragma once

#include <string>

namespace afunix::probe {

int runCommand(int argc, char **argv);    // afunix-probe run ... -- CMD ARGS  (Run.cpp)
int kernelCommand(int argc, char **argv); // afunix-probe kernel ...          (Kernel.cpp)
int benchCommand(int argc, char **argv);  // afunix-probe bench NAME ...      (Bench.cpp)
// afunix-probe kernel --compare OLD.json NEW.json                          (KernelCompare.cpp)
// `htmlPath`: also write the comparison as an HTML page there ("": none).
int kernelCompare(const std::string &oldPath, const std::string &newPath, bool json, const std::string &htmlPath);

} // namespace afunix::probe
