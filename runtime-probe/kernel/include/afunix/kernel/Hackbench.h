// The workloads behind the kernel patches' numbers, reproducible on today's kernel.
#pragma once

#include <string>
#include <vector>

namespace afunix::kernel {

// rt-tests hackbench's socket mode: `groups` groups of `fdsPerGroup` receivers, each with its own
// socketpair(AF_UNIX, SOCK_STREAM), and as many senders; every sender writes `loops` messages of
// `datasize` bytes to every receiver of its group. Timed from the wake-up of all workers to the
// end of the last, like hackbench's "Time:".
struct HackbenchOptions {
  int groups = 10;       // rt-tests defaults
  int loops = 100;
  int fdsPerGroup = 20;
  int datasize = 100;
  bool threads = false;  // -T; processes (-P) otherwise
  bool passcred = false; // SO_PASSCRED on both ends of every socketpair (pre-3.2 cost)
};
// Wall-clock seconds, or a negative value with `error` set. `cpuSeconds`, when given, receives
// the user+system CPU time the workers used: far less sensitive to other load than wall time.
double runHackbench(const HackbenchOptions &options, std::string &error,
                    double *cpuSeconds = nullptr);

// AF_UNIX throughput of one message size: a sender and a receiver thread for `seconds`.
struct ThroughputResult {
  int socketType = 0;
  std::size_t size = 0;
  double seconds = 0;
  double messagesPerSecond = 0;
  double mibPerSecond = 0;
  double sysNsPerMessage = 0;  // kernel CPU time of the process per message
  double userNsPerMessage = 0;
  std::string error;
};
ThroughputResult measureThroughput(int socketType, std::size_t size, double seconds);

} // namespace afunix::kernel
