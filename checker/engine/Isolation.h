// Running one translation unit's work so that a crash in it costs that unit, not the run.
//
// clang and the checks recurse over the source: 5000 nested unary minus overflow clang-19's own
// 8 MiB stack. LLVM's crash recovery catches SIGSEGV, but a handler for a stack overflow needs a
// stack to run on, and the main thread's is gone. runIsolated() therefore runs the work on a
// fresh thread with a large stack (so far deeper code parses at all), a guard region below it
// (so an overflow faults instead of writing over other memory) and an alternate signal stack
// (so the recovery handler can run and unwind to the caller).
//
// Why a thread and not a child process: the work keeps sharing the caller's state (clang-tidy's
// per-worker context, caches, the collected results) with no serialisation of findings or facts,
// and costs one thread start (~50 us) per unit. What it cannot contain: heap corruption, a crash
// while a lock is held, abort() outside LLVM's recovery, the OOM killer. Those still end the run.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>

#include <cstddef>
#include <string>

namespace afunix::check {

// Stack of the isolated thread: virtual address space only, pages are used as the recursion
// needs them. 512 MiB parses ~60x deeper nesting than clang-19's 8 MiB default.
inline constexpr std::size_t kIsolatedStackBytes = std::size_t(512) << 20;

struct IsolationOutcome {
  bool completed = false; // work returned normally
  int signal = 0;         // the signal that ended it, when it did not complete
  std::string what;       // one line for the user, e.g. "crashed (SIGSEGV: a stack overflow ...)"
};

// Runs `work` isolated as described above and waits for it. Thread-safe: any number of callers
// may run isolated work at once (one per worker thread). Falls back to smaller stacks, and in the
// end to the calling thread (still under crash recovery), when the system refuses a thread.
// Objects `work` was building when it crashed are leaked, never destroyed half-made.
IsolationOutcome runIsolated(llvm::function_ref<void()> work,
                             std::size_t stackBytes = kIsolatedStackBytes);

// The same protection for many units in turn: `count` threads, each set up once as runIsolated()
// sets up its thread, run `body(worker, isolate)`; `isolate(work)` runs one unit under crash
// recovery on that thread. A thread per unit pays its stack's page faults again for every unit
// (a 512 MiB stack is too big for glibc's cache of thread stacks): about 25 faults, a few percent
// of a small C file's parse. Here a worker's stack pages are faulted in once. After a crash the
// worker goes on with its next unit, as runIsolated()'s caller would. Waits for every worker.
using Isolate = llvm::function_ref<IsolationOutcome(llvm::function_ref<void()> work)>;
void runIsolatedWorkers(unsigned count, const std::function<void(unsigned worker, Isolate isolate)> &body,
                        std::size_t stackBytes = kIsolatedStackBytes);

} // namespace afunix::check
