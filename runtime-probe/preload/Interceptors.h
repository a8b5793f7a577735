// The interceptor vocabulary, after compiler-rt's sanitizer_common interceptors: every interceptor
// has the same shape
//
//   PROBE_INTERCEPTOR(ret, func, args...) {
//     PROBE_ENTER(fd);                      // is this fd an AF_UNIX socket? start the clock
//     ret r = PROBE_REAL(func)(args...);    // the real call, untouched
//     PROBE_RECORD(kind, cls);              // errno saved, event recorded, errno restored
//     return r;                             // the real return value, always
//   }
//
// REAL pointers are resolved with dlsym(RTLD_NEXT) in the constructor, or lazily by the first call
// that arrives before it (another library's constructor). The probe intercepts no allocator, so
// dlsym's own calloc() cannot recurse into it.
//
// Every interceptor registers itself where it is defined (compiler-rt's INIT_X, without the
// hand-kept list of INIT_X calls): PROBE_INTERCEPTOR puts a {name, resolver} entry into the
// afunix_probe_interceptors section, and the constructor walks that section between the
// __start_/__stop_ symbols the linker provides. Adding an interceptor is one definition.
#pragma once

#include "ProbeCore.h"

#include <atomic>
#include <cerrno>
#include <dlfcn.h>

#define PROBE_EXPORT extern "C" __attribute__((visibility("default")))

// A pointer to the next definition of `func`, and the function type it has.
#define PROBE_DECLARE_REAL(ret, func, ...)                                                         \
  using func##_fn = ret (*)(__VA_ARGS__);                                                         \
  static std::atomic<func##_fn> real_##func{nullptr};                                             \
  static func##_fn resolve_##func() {                                                             \
    auto fn = reinterpret_cast<func##_fn>(dlsym(RTLD_NEXT, #func));                               \
    real_##func.store(fn, std::memory_order_relaxed);                                             \
    return fn;                                                                                    \
  }

// For functions glibc exports in several versions: the one programs link today, by name, so that
// the probe never forwards to a compat variant with other semantics.
#define PROBE_DECLARE_REAL_VERSIONED(ret, func, version, ...)                                      \
  using func##_fn = ret (*)(__VA_ARGS__);                                                         \
  static std::atomic<func##_fn> real_##func{nullptr};                                             \
  static func##_fn resolve_##func() {                                                             \
    auto fn = reinterpret_cast<func##_fn>(dlvsym(RTLD_NEXT, #func, version));                     \
    if (!fn)                                                                                      \
      fn = reinterpret_cast<func##_fn>(dlsym(RTLD_NEXT, #func));                                  \
    real_##func.store(fn, std::memory_order_relaxed);                                             \
    return fn;                                                                                    \
  }

namespace afunix::probe::detail {
struct InterceptorEntry {
  const char *name;
  void *(*resolve)(); // resolves and stores REAL(func), returns it (nullptr: not found)
};
} // namespace afunix::probe::detail

#define PROBE_REGISTER(func)                                                                       \
  __attribute__((used, section("afunix_probe_interceptors"), aligned(sizeof(void *))))          \
  static const ::afunix::probe::detail::InterceptorEntry probeEntry_##func = {                    \
      #func, [] { return reinterpret_cast<void *>(resolve_##func()); }};

#define PROBE_REAL(func)                                                                           \
  (real_##func.load(std::memory_order_relaxed) ? real_##func.load(std::memory_order_relaxed)      \
                                               : resolve_##func())

#define PROBE_INTERCEPTOR(ret, func, ...)                                                          \
  PROBE_DECLARE_REAL(ret, func, __VA_ARGS__)                                                      \
  PROBE_REGISTER(func)                                                                            \
  PROBE_EXPORT ret func(__VA_ARGS__)
#define PROBE_INTERCEPTOR_VERSIONED(ret, func, version, ...)                                       \
  PROBE_DECLARE_REAL_VERSIONED(ret, func, version, __VA_ARGS__)                                   \
  PROBE_REGISTER(func)                                                                            \
  PROBE_EXPORT ret func(__VA_ARGS__)

// The call site: where in the program the intercepted call returns to. Read in the interceptor's
// own body (a macro, not a function), where it is the program's return address.
#define PROBE_CALLER reinterpret_cast<uintptr_t>(__builtin_return_address(0))

// Enter: decides whether the call is watched (an AF_UNIX socket) and starts the clock.
#define PROBE_ENTER(fd) ::afunix::probe::detail::Call probeCall(fd)
#define PROBE_ENTER_CLOCKED(fd) ::afunix::probe::detail::Call probeCall(fd, true)
// Record: runs `body` with errno saved, then counts the call; errno is what the real call left.
#define PROBE_RECORD_WITH(kind, cls, body)                                                         \
  do {                                                                                            \
    int probeErrno = errno;                                                                       \
    if (probeCall.watched) {                                                                      \
      uint64_t probeNs = probeCall.elapsed();                                                     \
      (void)probeNs;                                                                              \
      body;                                                                                       \
      probeCall.record(kind, cls, probeNs);                                                       \
    }                                                                                             \
    errno = probeErrno;                                                                           \
  } while (0)
#define PROBE_RECORD(kind, cls) PROBE_RECORD_WITH(kind, cls, (void)0)
// State changes that need no timing (socket(), close(), dup()...): errno saved around `body`.
#define PROBE_AFTER(body)                                                                          \
  do {                                                                                            \
    int probeErrno = errno;                                                                       \
    body;                                                                                         \
    errno = probeErrno;                                                                           \
  } while (0)

namespace afunix::probe::detail {

// Timing samples are drawn at random (xorshift32, per thread), not every Nth call: a program that
// alternates write() and read() would otherwise have only one of them ever timed. Initial-exec TLS
// so the state is reached without calling into libc.
inline thread_local uint32_t tTimingRandom __attribute__((tls_model("initial-exec"))) = 0;
inline bool sampleThisCall(uint32_t period) {
  if (period <= 1)
    return true;
  uint32_t x = tTimingRandom;
  if (!x) // per-thread seed: the TLS block's address differs between threads
    x = 0x9E3779B9u ^ static_cast<uint32_t>(reinterpret_cast<uintptr_t>(&tTimingRandom) >> 4);
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  tTimingRandom = x;
  return (x & (period - 1)) == 0;
}

struct Call {
  bool watched = false;
  bool sampled = false; // this call's latency goes into the histogram
  uint64_t start = 0;
  // `alwaysClock`: read the start time even when the call is not sampled, so that the caller can
  // still time it once it knows what the call carried (sendmsg() with control data: looking at
  // the msghdr before the kernel has is not the probe's business).
  explicit Call(int fd, bool alwaysClock = false) {
    int saved = errno;
    watched = fdTable().lookup(fd).isUnix();
    if (watched && config().timing) {
      sampled = sampleThisCall(config().timingSample);
      if (sampled || alwaysClock)
        start = nowNs();
    }
    errno = saved;
  }
  uint64_t elapsed() const { return start && sampled ? nowNs() - start : UINT64_MAX; }
  uint64_t elapsedAnyway() const { return start ? nowNs() - start : UINT64_MAX; }
  void record(CallKind kind, CallClass cls, uint64_t ns) const {
    stats().record(histIndex(kind, cls), config().timing ? ns : UINT64_MAX);
    if (config().intervalNs)
      maybePeriodicReport(ns != UINT64_MAX ? start + ns : nowNs());
  }
};

} // namespace afunix::probe::detail
