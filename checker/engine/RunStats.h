// What a whole-program run did and what each phase cost: `afunix-check --timings` prints it, the
// benches read it, and the summary line takes the cache counts from it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace afunix::check {

struct PhaseCost {
  std::string name;
  double wall = 0; // seconds
  double cpu = 0;  // seconds of the whole process (user + sys, every thread) during the phase
  std::size_t rssKiB = 0; // resident memory when the phase ended
};

struct RunStats {
  std::vector<PhaseCost> phases; // in the order they ran
  std::size_t extracted = 0;     // units parsed now
  std::size_t cached = 0;        // units whose facts came from the facts cache
  std::size_t cacheRejected = 0; // cache entries found damaged or foreign, rebuilt
  std::size_t stored = 0;        // units taken from stored facts or shards
  std::size_t preambles = 0;     // shared preambles planned
  std::size_t fromPreamble = 0;  // units parsed from a shared preamble
  std::size_t inputsByStamp = 0; // facts cache inputs found unchanged by their stamp, not read
  std::size_t inputsRead = 0;    // facts cache inputs read and hashed
  std::size_t factsBytes = 0;    // facts of the units of this run, as written (JSON)
  std::size_t peakRssKiB = 0;    // the process's peak resident memory at the end of the run
  // The prefilter (Prefilter.h): jobs whose text names the socket vocabulary, rounds of parsing,
  // jobs never parsed, files whose text was read (main files, project headers).
  std::size_t prefilterSeeds = 0;
  std::size_t prefilterRounds = 0;
  std::size_t prefilterLinksSpared = 0; // rounds not linked: the facts cache had their names
  std::size_t prefilterSkipped = 0;
  std::size_t prefilterFilesRead = 0;
  std::size_t prefilterFilesByStamp = 0; // of those, scans the facts cache had (files not read)
  // The judged program's value flow: its places, its objects, and the pointers' sets that held
  // more objects than Program::kMaxObjectsPerPointer and were widened to any object.
  std::size_t places = 0;
  std::size_t objects = 0;
  std::size_t widenedPointerSets = 0;
  // main() definitions, and the accept()s whose listeners were judged per program.
  std::size_t programs = 0;
  std::size_t acceptsSplitByProgram = 0;

  // "extract 1.234 s (CPU 2.345 s), link 0.012 s (CPU 0.012 s), ..."
  std::string describe() const;
};

// Measures one phase into a RunStats (or nothing, when given none): construct at the start,
// stop() (or destroy) at the end.
class PhaseTimer {
public:
  PhaseTimer(RunStats *stats, std::string name);
  ~PhaseTimer() { stop(); }
  void stop();

private:
  RunStats *Stats;
  std::string Name;
  std::chrono::steady_clock::time_point Wall;
  double Cpu = 0;
  bool Running = true;
};

// CPU seconds (user + sys) the process has used so far, every thread included.
double processCpuSeconds();
// The process's peak resident set since it started this program (not its parent's), KiB.
std::size_t peakRssKiB();
// The process's resident set now, KiB.
std::size_t currentRssKiB();

} // namespace afunix::check
