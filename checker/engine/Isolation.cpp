#include "Isolation.h"

#include "llvm/Support/CrashRecoveryContext.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <sys/mman.h>
#include <vector>

namespace afunix::check {

namespace {

// Large frames (clang has functions with several KiB of locals) must not step over the guard.
constexpr std::size_t kGuardBytes = std::size_t(1) << 20;
constexpr std::size_t kAltStackBytes = std::size_t(256) << 10;
constexpr std::size_t kSmallestStack = std::size_t(8) << 20;

void setUpRecovery() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::CrashRecoveryContext::Enable();
    // LLVM installs its handlers without SA_ONSTACK; with it, they run on the alternate stack
    // each isolated thread sets up, which is what makes a stack overflow recoverable.
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) {
      struct sigaction action;
      if (sigaction(sig, nullptr, &action) != 0)
        continue;
      bool installed = (action.sa_flags & SA_SIGINFO) ? action.sa_sigaction != nullptr
                                                      : action.sa_handler != SIG_DFL &&
                                                            action.sa_handler != SIG_IGN;
      if (!installed)
        continue;
      action.sa_flags |= SA_ONSTACK;
      sigaction(sig, &action, nullptr);
    }
  });
}

std::string describe(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "crashed (SIGSEGV: an invalid memory access, or a stack overflow on deeply nested "
           "code)";
  case SIGBUS:
    return "crashed (SIGBUS)";
  case SIGILL:
    return "crashed (SIGILL: an internal assertion or trap)";
  case SIGFPE:
    return "crashed (SIGFPE)";
  case SIGABRT:
    return "crashed (SIGABRT)";
  default:
    return signal ? "crashed (signal " + std::to_string(signal) + ")" : "crashed";
  }
}

struct Task {
  llvm::function_ref<void()> work;
  IsolationOutcome outcome;
};

void runRecovered(Task &task) {
  llvm::CrashRecoveryContext recovery;
  task.outcome.completed = recovery.RunSafely(task.work);
  if (!task.outcome.completed) {
    // RetCode is 128 + the signal number for a signal on Unix.
    task.outcome.signal = recovery.RetCode > 128 ? recovery.RetCode - 128 : 0;
    task.outcome.what = describe(task.outcome.signal);
  }
}

// An alternate signal stack for the calling thread, for as long as it lives.
class AltStack {
public:
  AltStack() {
    Memory = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
    if (Memory != MAP_FAILED) {
      stack_t stack{};
      stack.ss_sp = Memory;
      stack.ss_size = kAltStackBytes;
      Installed = sigaltstack(&stack, nullptr) == 0;
    }
  }
  ~AltStack() {
    if (Installed) {
      stack_t off{};
      off.ss_flags = SS_DISABLE;
      sigaltstack(&off, nullptr);
    }
    if (Memory != MAP_FAILED)
      munmap(Memory, kAltStackBytes);
  }

private:
  void *Memory = MAP_FAILED;
  bool Installed = false;
};

void *threadMain(void *arg) {
  AltStack alt;
  runRecovered(*static_cast<Task *>(arg));
  return nullptr;
}

// Starts `main(arg)` on a thread with a stack of `stackBytes` (or less, down to 8 MiB, when the
// system refuses) behind a guard region. False when no thread could be had.
bool startIsolatedThread(pthread_t &thread, void *(*main)(void *), void *arg,
                         std::size_t stackBytes) {
  for (std::size_t size = std::max(stackBytes, kSmallestStack);; size /= 4) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
      return false;
    bool started = pthread_attr_setstacksize(&attr, size) == 0 &&
                   pthread_attr_setguardsize(&attr, kGuardBytes) == 0 &&
                   pthread_create(&thread, &attr, main, arg) == 0;
    pthread_attr_destroy(&attr);
    if (started)
      return true;
    if (size <= kSmallestStack)
      return false;
  }
}

struct WorkerArgs {
  unsigned index;
  const std::function<void(unsigned, Isolate)> *body;
};

IsolationOutcome recoverHere(llvm::function_ref<void()> work) {
  Task task{work, {}};
  runRecovered(task);
  return task.outcome;
}

void *workerMain(void *arg) {
  auto &args = *static_cast<WorkerArgs *>(arg);
  AltStack alt;
  (*args.body)(args.index, recoverHere);
  return nullptr;
}

} // namespace

IsolationOutcome runIsolated(llvm::function_ref<void()> work, std::size_t stackBytes) {
  setUpRecovery();
  Task task{work, {}};
  pthread_t thread;
  if (startIsolatedThread(thread, threadMain, &task, stackBytes)) {
    pthread_join(thread, nullptr);
    return task.outcome;
  }
  // No thread to be had: the caller's stack, still under crash recovery.
  runRecovered(task);
  return task.outcome;
}

void runIsolatedWorkers(unsigned count, const std::function<void(unsigned, Isolate)> &body,
                        std::size_t stackBytes) {
  setUpRecovery();
  std::vector<WorkerArgs> args(std::max(1u, count));
  std::vector<pthread_t> threads;
  for (unsigned i = 0; i < args.size(); ++i) {
    args[i] = {i, &body};
    pthread_t thread;
    if (startIsolatedThread(thread, workerMain, &args[i], stackBytes))
      threads.push_back(thread);
    else if (threads.empty())
      body(i, recoverHere); // no thread at all: the caller's stack, still under crash recovery
  }
  for (pthread_t thread : threads)
    pthread_join(thread, nullptr);
}

} // namespace afunix::check
