#include "RunStats.h"

#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

namespace afunix::check {

double processCpuSeconds() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::size_t peakRssKiB() {
  // VmHWM is this program's own high-water mark. getrusage()'s ru_maxrss is not: Linux keeps it
  // across execve(), so a checker started by a large parent (bench/corpus.py holding earlier
  // runs' results) reported the parent's resident set as its own peak.
  if (std::FILE *status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned long kib = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, status))
      found = std::sscanf(line, "VmHWM: %lu kB", &kib) == 1;
    std::fclose(status);
    if (found)
      return kib;
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::size_t>(usage.ru_maxrss); // Linux: KiB
}

std::size_t currentRssKiB() {
  std::FILE *statm = std::fopen("/proc/self/statm", "r");
  if (!statm)
    return 0;
  unsigned long size = 0, resident = 0;
  int read = std::fscanf(statm, "%lu %lu", &size, &resident);
  std::fclose(statm);
  return read == 2 ? resident * (static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / 1024) : 0;
}

PhaseTimer::PhaseTimer(RunStats *stats, std::string name)
    : Stats(stats), Name(std::move(name)), Wall(std::chrono::steady_clock::now()),
      Cpu(stats ? processCpuSeconds() : 0) {}

void PhaseTimer::stop() {
  if (!Running)
    return;
  Running = false;
  if (!Stats)
    return;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Wall).count();
  Stats->phases.push_back({Name, wall, processCpuSeconds() - Cpu, currentRssKiB()});
}

std::string RunStats::describe() const {
  std::string out;
  char buffer[160];
  for (const PhaseCost &phase : phases) {
    std::snprintf(buffer, sizeof buffer, "%s%s %.3f s (CPU %.3f s, RSS %zu MiB)",
                  out.empty() ? "" : ", ", phase.name.c_str(), phase.wall, phase.cpu,
                  phase.rssKiB / 1024);
    out += buffer;
  }
  std::snprintf(buffer, sizeof buffer,
                "; units: %zu extracted, %zu from the cache, %zu stored; facts %zu bytes; peak RSS "
                "%zu KiB",
                extracted, cached, stored, factsBytes, peakRssKiB);
  out += buffer;
  if (inputsByStamp || inputsRead) {
    std::snprintf(buffer, sizeof buffer, "; cache inputs: %zu unchanged by stamp, %zu read",
                  inputsByStamp, inputsRead);
    out += buffer;
  }
  if (prefilterFilesRead) {
    std::snprintf(buffer, sizeof buffer,
                  "; prefilter: %zu seeds (name the socket vocabulary, or their text cannot "
                  "tell), %zu rounds, %zu skipped (name nothing that matters), %zu files read",
                  prefilterSeeds, prefilterRounds, prefilterSkipped, prefilterFilesRead);
    out += buffer;
    if (prefilterFilesByStamp) {
      std::snprintf(buffer, sizeof buffer, " (%zu of them known by their stamp, not read)",
                    prefilterFilesByStamp);
      out += buffer;
    }
    if (prefilterLinksSpared) {
      std::snprintf(buffer, sizeof buffer, ", %zu rounds not linked (names from the cache)",
                    prefilterLinksSpared);
      out += buffer;
    }
  }
  if (places) {
    std::snprintf(buffer, sizeof buffer, "; value flow: %zu places, %zu objects, %zu pointer sets widened",
                  places, objects, widenedPointerSets);
    out += buffer;
    if (programs > 1) {
      std::snprintf(buffer, sizeof buffer, ", %zu programs (main()), %zu accept()s judged per program",
                    programs, acceptsSplitByProgram);
      out += buffer;
    }
  }
  if (preambles) {
    std::snprintf(buffer, sizeof buffer, "; %zu shared preambles, %zu units parsed from one",
                  preambles, fromPreamble);
    out += buffer;
  }
  if (cacheRejected) {
    std::snprintf(buffer, sizeof buffer, "; %zu damaged or foreign cache entries rebuilt",
                  cacheRejected);
    out += buffer;
  }
  return out;
}

} // namespace afunix::check
