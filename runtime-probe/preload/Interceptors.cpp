// libafunix-probe.so: the interceptors. Each one calls the real function with the caller's
// arguments and returns its result untouched; errno is restored to what the real call left. The
// only exception is --fix passcred (AFUNIX_PROBE_FIX=passcred), which enables SO_PASSCRED before
// listen() / recvmsg() on AF_UNIX sockets and reports every place it did.
#include "Interceptors.h"

#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

using namespace afunix::probe;

extern char **environ;

namespace {

// ---- environment handed to exec'd images -------------------------------------------------------
// Captured at load: the variables a child image needs to be probed the same way.
constexpr const char *kCarried[] = {"AFUNIX_PROBE_DIR",     "AFUNIX_PROBE_TIMING",   "AFUNIX_PROBE_FIX",
                                    "AFUNIX_PROBE_FORMAT",  "AFUNIX_PROBE_SLOW_NS", "AFUNIX_PROBE_INTERVAL",
                                    "AFUNIX_PROBE_TIMING_SAMPLE", "AFUNIX_PROBE_STACKS", "AFUNIX_PROBE_SITES"};
constexpr int kCarriedCount = sizeof kCarried / sizeof *kCarried;
char gCarried[kCarriedCount][640];
char gPreload[4096]; // "LD_PRELOAD=<value at load>"
char gLibraryPath[1024];

bool hasKey(const char *entry, const char *key) {
  std::size_t n = std::strlen(key);
  return !std::strncmp(entry, key, n) && entry[n] == '=';
}

void captureEnvironment() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&captureEnvironment), &info) && info.dli_fname &&
      std::strlen(info.dli_fname) < sizeof gLibraryPath)
    std::strcpy(gLibraryPath, info.dli_fname);
  for (int i = 0; i < kCarriedCount; ++i) {
    const char *value = getenv(kCarried[i]);
    if (value && std::strlen(kCarried[i]) + std::strlen(value) + 2 < sizeof gCarried[i]) {
      std::strcpy(gCarried[i], kCarried[i]);
      std::strcat(gCarried[i], "=");
      std::strcat(gCarried[i], value);
    }
  }
  const char *preload = getenv("LD_PRELOAD");
  if (!preload || !*preload)
    preload = gLibraryPath;
  if (std::strlen(preload) + 12 < sizeof gPreload) {
    std::strcpy(gPreload, "LD_PRELOAD=");
    std::strcat(gPreload, preload);
  }
}

// Builds, in caller-provided storage, an environment that still loads the probe: the program's
// own entries, LD_PRELOAD with the probe prepended if a program dropped it, and the AFUNIX_PROBE_*
// variables it had at load if they are missing. Returns `envp` itself when nothing is missing.
struct ExecEnv {
  static constexpr int kMax = 1024; // on the caller's stack: keep it small (threads, vfork children)
  char *entries[kMax + kCarriedCount + 2];
  char preload[4096];
};
// Whether every entry of `envp` (at most `max` of them) and every string it points to can be
// read, checked without touching them (copyFromProcess cannot fault). A bad environment is the
// kernel's EFAULT to return, untouched by the probe.
bool readableEnvironment(char *const *envp, int max) {
  if (!envp)
    return true; // Linux takes a NULL environment as an empty one
  for (int i = 0; i <= max; ++i) {
    char *entry;
    if (!copyFromProcess(&entry, envp + i, sizeof entry))
      return false;
    if (!entry)
      return true;
    // The string, in chunks that never cross a page boundary (a string ending just before an
    // unmapped page is valid).
    for (const char *p = entry;;) {
      std::size_t toPage = 4096 - (reinterpret_cast<uintptr_t>(p) & 4095);
      char chunk[256];
      std::size_t n = toPage < sizeof chunk ? toPage : sizeof chunk;
      if (!copyFromProcess(chunk, p, n))
        return false;
      if (std::memchr(chunk, 0, n))
        break;
      p += n;
    }
  }
  return false; // more entries than we would rewrite: leave the environment alone
}

char *const *probedEnvironment(char *const *envp, ExecEnv &out) {
  if (!gLibraryPath[0] || !gPreload[0] || !readableEnvironment(envp, ExecEnv::kMax))
    return envp;
  int n = 0;
  bool preloadOk = false, missing[kCarriedCount];
  for (int i = 0; i < kCarriedCount; ++i)
    missing[i] = gCarried[i][0] != 0;
  const char *programPreload = nullptr;
  for (char *const *e = envp; e && *e; ++e) {
    if (hasKey(*e, "LD_PRELOAD")) {
      programPreload = *e + 11;
      preloadOk = std::strstr(programPreload, gLibraryPath) != nullptr;
    }
    for (int i = 0; i < kCarriedCount; ++i)
      if (missing[i] && hasKey(*e, kCarried[i]))
        missing[i] = false;
    ++n;
  }
  bool anyMissing = !preloadOk;
  for (bool m : missing)
    anyMissing |= m;
  if (!anyMissing || n > ExecEnv::kMax)
    return envp;
  int k = 0;
  for (char *const *e = envp; e && *e; ++e)
    if (!hasKey(*e, "LD_PRELOAD"))
      out.entries[k++] = *e;
  if (!preloadOk) {
    std::size_t a = std::strlen(gPreload), b = programPreload ? std::strlen(programPreload) : 0;
    if (a + b + 2 < sizeof out.preload) {
      std::memcpy(out.preload, gPreload, a);
      if (b) {
        out.preload[a] = ':';
        std::memcpy(out.preload + a + 1, programPreload, b);
        a += b + 1;
      }
      out.preload[a] = 0;
      out.entries[k++] = out.preload;
    }
  } else
    out.entries[k++] = const_cast<char *>(programPreload - 11);
  for (int i = 0; i < kCarriedCount; ++i)
    if (missing[i])
      out.entries[k++] = gCarried[i];
  out.entries[k] = nullptr;
  return out.entries;
}

// Before an exec replaces the image: the report of this image is written now.
void beforeExec() { writeReport("exec"); }

// A new process: its report file exists from now on ("running"), so that `afunix-probe run`
// knows about it even if it never writes a final report (killed by a signal).
void childAfterFork() {
  resetAfterFork(); // the graph too: the child's own fd passing starts from nothing
  if (config().dirUsable)
    writeReport("running");
}

std::atomic<bool> gInitialised{false};

} // namespace

// The section every PROBE_INTERCEPTOR adds its entry to (see Interceptors.h).
// Hidden: the bounds are the library's own business, not exported next to the interceptors.
extern "C" __attribute__((visibility("hidden"))) const afunix::probe::detail::InterceptorEntry
    __start_afunix_probe_interceptors[];
extern "C" __attribute__((visibility("hidden"))) const afunix::probe::detail::InterceptorEntry
    __stop_afunix_probe_interceptors[];

namespace {
void resolveRegisteredInterceptors() {
  for (const auto *e = __start_afunix_probe_interceptors; e < __stop_afunix_probe_interceptors; ++e)
    if (!e->resolve()) {
      // Only a libc without this function: calls to it could not be forwarded. Say so once.
      const char *parts[] = {"afunix-probe: the C library has no ", e->name,
                             "; the program cannot call it either\n"};
      for (const char *p : parts)
        syscall(SYS_write, 2, p, std::strlen(p));
    }
}
} // namespace

// The names of the registered interceptors, NUL-separated, for the test that checks every
// exported function registered itself.
PROBE_EXPORT const char *afunix_probe_interceptor_names() {
  static char names[2048];
  if (!names[0]) {
    std::size_t used = 0;
    for (const auto *e = __start_afunix_probe_interceptors; e < __stop_afunix_probe_interceptors; ++e) {
      std::size_t n = std::strlen(e->name) + 1;
      if (used + n + 1 >= sizeof names)
        break;
      std::memcpy(names + used, e->name, n);
      used += n;
    }
    names[used] = 0;
  }
  return names;
}

// ---- sockets -----------------------------------------------------------------------------------
PROBE_INTERCEPTOR(int, socket, int domain, int type, int protocol) {
  int fd = PROBE_REAL(socket)(domain, type, protocol);
  if (fd >= 0)
    PROBE_AFTER({
      onSocketCreated(fd, domain, type, PROBE_CALLER);
      noteCallSite(SiteCall::Socket, PROBE_CALLER, fd);
    });
  return fd;
}

PROBE_INTERCEPTOR(int, socketpair, int domain, int type, int protocol, int sv[2]) {
  int r = PROBE_REAL(socketpair)(domain, type, protocol, sv);
  if (r == 0)
    PROBE_AFTER({
      onSocketPair(sv, domain, type, PROBE_CALLER);
      noteCallSite(SiteCall::Socketpair, PROBE_CALLER, sv[0]);
    });
  return r;
}

PROBE_INTERCEPTOR(int, accept, int fd, struct sockaddr *addr, socklen_t *len) {
  PROBE_ENTER(fd);
  int r = PROBE_REAL(accept)(fd, addr, len);
  PROBE_RECORD_WITH(CallKind::Accept, CallClass::NoFds, if (r >= 0) onAccepted(fd, r, PROBE_CALLER));
  PROBE_AFTER(noteCallSite(SiteCall::Accept, PROBE_CALLER, r >= 0 ? r : fd));
  return r;
}

PROBE_INTERCEPTOR(int, accept4, int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  PROBE_ENTER(fd);
  int r = PROBE_REAL(accept4)(fd, addr, len, flags);
  PROBE_RECORD_WITH(CallKind::Accept, CallClass::NoFds, if (r >= 0) onAccepted(fd, r, PROBE_CALLER));
  PROBE_AFTER(noteCallSite(SiteCall::Accept, PROBE_CALLER, r >= 0 ? r : fd));
  return r;
}

PROBE_INTERCEPTOR(int, connect, int fd, const struct sockaddr *addr, socklen_t len) {
  PROBE_ENTER(fd);
  int r = PROBE_REAL(connect)(fd, addr, len);
  PROBE_RECORD(CallKind::Connect, CallClass::NoFds);
  PROBE_AFTER(noteCallSite(SiteCall::Connect, PROBE_CALLER, fd));
  return r;
}

PROBE_INTERCEPTOR(int, bind, int fd, const struct sockaddr *addr, socklen_t len) {
  int r = PROBE_REAL(bind)(fd, addr, len);
  if (r == 0)
    PROBE_AFTER(onBind(fd));
  PROBE_AFTER(noteCallSite(SiteCall::Bind, PROBE_CALLER, fd));
  return r;
}

PROBE_INTERCEPTOR(int, listen, int fd, int backlog) {
  PROBE_AFTER(beforeListen(fd, PROBE_CALLER)); // --fix passcred: before listen(), so every client is covered
  int r = PROBE_REAL(listen)(fd, backlog);
  if (r == 0)
    PROBE_AFTER(onListen(fd));
  PROBE_AFTER(noteCallSite(SiteCall::Listen, PROBE_CALLER, fd));
  return r;
}

PROBE_INTERCEPTOR(int, setsockopt, int fd, int level, int name, const void *value, socklen_t len) {
  int r = PROBE_REAL(setsockopt)(fd, level, name, value, len);
  int err = r ? errno : 0;
  PROBE_AFTER({
    onSetsockopt(fd, level, name, value, len, r, err, PROBE_CALLER);
    noteCallSite(SiteCall::Setsockopt, PROBE_CALLER, fd);
  });
  return r;
}

PROBE_INTERCEPTOR(int, getsockopt, int fd, int level, int name, void *value, socklen_t *len) {
  int r = PROBE_REAL(getsockopt)(fd, level, name, value, len);
  if (r == 0)
    PROBE_AFTER(onGetsockopt(fd, level, name));
  PROBE_AFTER(noteCallSite(SiteCall::Getsockopt, PROBE_CALLER, fd));
  return r;
}

// ---- fd lifetime ----------------------------------------------------------------------------
PROBE_INTERCEPTOR(int, close, int fd) {
  // Forget first: once the kernel has closed it, another thread may already own the number.
  PROBE_AFTER(onClose(fd));
  return PROBE_REAL(close)(fd);
}

PROBE_INTERCEPTOR(int, close_range, unsigned first, unsigned last, int flags) {
  int r = PROBE_REAL(close_range)(first, last, flags);
  if (r == 0 && !(flags & 4 /* CLOSE_RANGE_CLOEXEC */))
    PROBE_AFTER(for (unsigned fd = first; fd <= last && fd < static_cast<unsigned>(kFdTableSize); ++fd)
                    onClose(static_cast<int>(fd)));
  return r;
}

PROBE_INTERCEPTOR(int, dup, int fd) {
  int r = PROBE_REAL(dup)(fd);
  if (r >= 0)
    PROBE_AFTER(onDup(fd, r));
  return r;
}

PROBE_INTERCEPTOR(int, dup2, int fd, int target) {
  int r = PROBE_REAL(dup2)(fd, target);
  if (r >= 0 && fd != target)
    PROBE_AFTER(onDup(fd, r));
  return r;
}

PROBE_INTERCEPTOR(int, dup3, int fd, int target, int flags) {
  int r = PROBE_REAL(dup3)(fd, target, flags);
  if (r >= 0)
    PROBE_AFTER(onDup(fd, r));
  return r;
}

// fcntl is variadic; the third argument is passed on as a pointer-sized value, as glibc reads it.
#define PROBE_FCNTL(func)                                                                          \
  PROBE_INTERCEPTOR(int, func, int fd, int cmd, ...) {                                            \
    va_list ap;                                                                                   \
    va_start(ap, cmd);                                                                            \
    void *arg = va_arg(ap, void *);                                                               \
    va_end(ap);                                                                                   \
    int r = PROBE_REAL(func)(fd, cmd, arg);                                                       \
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))                                     \
      PROBE_AFTER(onDup(fd, r));                                                                  \
    return r;                                                                                     \
  }
PROBE_FCNTL(fcntl)
PROBE_FCNTL(fcntl64)

// ---- data ---------------------------------------------------------------------------------------
PROBE_INTERCEPTOR(ssize_t, sendmsg, int fd, const struct msghdr *msg, int flags) {
  // fd-carrying sends are always timed (a slow one is fd-flood evidence); whether this one
  // carries fds is known only after the kernel has read the msghdr, so the clock starts anyway.
  // Before the clock: what this socket sent to receivers in other processes, asked of the kernel.
  PROBE_AFTER(graphBeforeSend(fd));
  PROBE_ENTER_CLOCKED(fd);
  ssize_t r = PROBE_REAL(sendmsg)(fd, msg, flags);
  SendInfo info;
  PROBE_RECORD_WITH(CallKind::Send, info.cls, {
    // Success and ETOOMANYREFS: the kernel has read and parsed the control data. EINVAL may come
    // from a bad cmsg_len or a bad msghdr before the kernel read anything: copied, never trusted.
    if (r >= 0 || probeErrno == ETOOMANYREFS || probeErrno == EINVAL)
      info = inspectSend(fd, msg, r >= 0 || probeErrno == ETOOMANYREFS);
    if (info.cls != CallClass::NoFds && probeNs == UINT64_MAX)
      probeNs = probeCall.elapsedAnyway();
    onSendmsg(fd, msg, info, r, r < 0 ? probeErrno : 0, probeNs, PROBE_CALLER);
  });
  PROBE_AFTER(noteCallSite(SiteCall::Sendmsg, PROBE_CALLER, fd));
  return r;
}

PROBE_INTERCEPTOR(int, sendmmsg, int fd, struct mmsghdr *msgs, unsigned vlen, int flags) {
  PROBE_AFTER(graphBeforeSend(fd));
  PROBE_ENTER(fd);
  int r = PROBE_REAL(sendmmsg)(fd, msgs, vlen, flags);
  PROBE_AFTER(noteCallSite(SiteCall::Sendmsg, PROBE_CALLER, fd));
  CallClass cls = CallClass::NoFds;
  PROBE_RECORD_WITH(CallKind::Send, cls, {
    for (int i = 0; i < r; ++i) { // the first r messages were sent: the kernel read them
      SendInfo info = inspectSend(fd, &msgs[i].msg_hdr, true);
      onSendmsg(fd, &msgs[i].msg_hdr, info, msgs[i].msg_len, 0, UINT64_MAX, PROBE_CALLER);
      if (static_cast<int>(info.cls) > static_cast<int>(cls))
        cls = info.cls;
    }
  });
  return r;
}

// The msghdr is read only after a successful call: before it, it is the program's pointer, and
// the kernel (not the probe) decides whether it is valid (EFAULT).
PROBE_INTERCEPTOR(ssize_t, recvmsg, int fd, struct msghdr *msg, int flags) {
  PROBE_AFTER(beforeRecvmsg(fd, msg, PROBE_CALLER));
  PROBE_ENTER(fd);
  ssize_t r = PROBE_REAL(recvmsg)(fd, msg, flags);
  CallClass cls = CallClass::NoFds;
  PROBE_RECORD_WITH(CallKind::Recv, cls, cls = onRecvmsg(fd, msg, r, flags, PROBE_CALLER));
  PROBE_AFTER(noteCallSite(SiteCall::Recvmsg, PROBE_CALLER, fd));
  return r;
}

PROBE_INTERCEPTOR(int, recvmmsg, int fd, struct mmsghdr *msgs, unsigned vlen, int flags, struct timespec *timeout) {
  if (config().fixPasscred) // only the first header matters: SO_PASSCRED is per socket
    PROBE_AFTER(beforeRecvmsg(fd, vlen ? &msgs[0].msg_hdr : nullptr, PROBE_CALLER));
  PROBE_ENTER(fd);
  int r = PROBE_REAL(recvmmsg)(fd, msgs, vlen, flags, timeout);
  PROBE_AFTER(noteCallSite(SiteCall::Recvmsg, PROBE_CALLER, fd));
  CallClass cls = CallClass::NoFds;
  PROBE_RECORD_WITH(CallKind::Recv, cls, {
    for (int i = 0; i < r; ++i) { // the first r entries were filled in by the kernel
      CallClass c = onRecvmsg(fd, &msgs[i].msg_hdr, msgs[i].msg_len, flags, PROBE_CALLER);
      if (static_cast<int>(c) > static_cast<int>(cls))
        cls = c;
    }
  });
  return r;
}

// Plain data calls: counted and timed on AF_UNIX sockets only (class "none": they carry no cmsg).
#define PROBE_DATA_CALL(ret, func, kind, params, args)                                             \
  PROBE_INTERCEPTOR(ret, func, PROBE_UNPAREN params) {                                           \
    PROBE_ENTER(fd);                                                                              \
    ret r = PROBE_REAL(func) args;                                                                \
    PROBE_RECORD(kind, CallClass::NoFds);                                                         \
    return r;                                                                                     \
  }
#define PROBE_UNPAREN(...) __VA_ARGS__

PROBE_DATA_CALL(ssize_t, send, CallKind::Send, (int fd, const void *buf, size_t n, int flags), (fd, buf, n, flags))
PROBE_DATA_CALL(ssize_t, sendto, CallKind::Send,
                (int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr, socklen_t len),
                (fd, buf, n, flags, addr, len))
PROBE_DATA_CALL(ssize_t, recv, CallKind::Recv, (int fd, void *buf, size_t n, int flags), (fd, buf, n, flags))
PROBE_DATA_CALL(ssize_t, recvfrom, CallKind::Recv,
                (int fd, void *buf, size_t n, int flags, struct sockaddr *addr, socklen_t *len),
                (fd, buf, n, flags, addr, len))
PROBE_DATA_CALL(ssize_t, write, CallKind::Write, (int fd, const void *buf, size_t n), (fd, buf, n))
PROBE_DATA_CALL(ssize_t, read, CallKind::Read, (int fd, void *buf, size_t n), (fd, buf, n))
PROBE_DATA_CALL(ssize_t, writev, CallKind::Write, (int fd, const struct iovec *iov, int count), (fd, iov, count))
PROBE_DATA_CALL(ssize_t, readv, CallKind::Read, (int fd, const struct iovec *iov, int count), (fd, iov, count))
// _FORTIFY_SOURCE turns read()/recv()/recvfrom() into these.
PROBE_DATA_CALL(ssize_t, __read_chk, CallKind::Read, (int fd, void *buf, size_t n, size_t size), (fd, buf, n, size))
PROBE_DATA_CALL(ssize_t, __recv_chk, CallKind::Recv, (int fd, void *buf, size_t n, size_t size, int flags),
                (fd, buf, n, size, flags))
PROBE_DATA_CALL(ssize_t, __recvfrom_chk, CallKind::Recv,
                (int fd, void *buf, size_t n, size_t size, int flags, struct sockaddr *addr, socklen_t *len),
                (fd, buf, n, size, flags, addr, len))

// ---- process lifetime ---------------------------------------------------------------------------
PROBE_INTERCEPTOR(int, execve, const char *path, char *const argv[], char *const envp[]) {
  ExecEnv env;
  char *const *probed = envp;
  PROBE_AFTER({
    beforeExec();
    probed = probedEnvironment(envp, env);
  });
  return PROBE_REAL(execve)(path, argv, probed);
}

PROBE_INTERCEPTOR(int, execvpe, const char *file, char *const argv[], char *const envp[]) {
  ExecEnv env;
  char *const *probed = envp;
  PROBE_AFTER({
    beforeExec();
    probed = probedEnvironment(envp, env);
  });
  return PROBE_REAL(execvpe)(file, argv, probed);
}

PROBE_INTERCEPTOR(int, fexecve, int fd, char *const argv[], char *const envp[]) {
  ExecEnv env;
  char *const *probed = envp;
  PROBE_AFTER({
    beforeExec();
    probed = probedEnvironment(envp, env);
  });
  return PROBE_REAL(fexecve)(fd, argv, probed);
}

// glibc's execv/execvp/execl* call its internal execve, not ours: route them through the
// interceptors above.
PROBE_EXPORT int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }
PROBE_EXPORT int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

#define PROBE_COLLECT_ARGS(first, last_named, extra)                                               \
  constexpr int kMaxArgs = 4096;                                                                  \
  char *args[kMaxArgs + 1];                                                                       \
  int count = 0;                                                                                  \
  va_list ap;                                                                                     \
  va_start(ap, last_named);                                                                       \
  args[count++] = const_cast<char *>(first);                                                      \
  while (args[count - 1] && count <= kMaxArgs)                                                    \
    args[count++] = va_arg(ap, char *);                                                           \
  if (count > kMaxArgs) {                                                                         \
    va_end(ap);                                                                                   \
    errno = E2BIG;                                                                                \
    return -1;                                                                                    \
  }                                                                                               \
  extra;                                                                                          \
  va_end(ap)

PROBE_EXPORT int execl(const char *path, const char *arg, ...) {
  PROBE_COLLECT_ARGS(arg, arg, (void)0);
  return execve(path, args, environ);
}
PROBE_EXPORT int execlp(const char *file, const char *arg, ...) {
  PROBE_COLLECT_ARGS(arg, arg, (void)0);
  return execvpe(file, args, environ);
}
PROBE_EXPORT int execle(const char *path, const char *arg, ...) {
  char *const *envp = nullptr;
  PROBE_COLLECT_ARGS(arg, arg, envp = va_arg(ap, char *const *));
  return execve(path, args, envp);
}

// posix_spawn[p] exist as GLIBC_2.15 (current) and GLIBC_2.2.5 (compat, other error reporting).
PROBE_INTERCEPTOR_VERSIONED(int, posix_spawn, "GLIBC_2.15", pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                  const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  ExecEnv env;
  char *const *probed = envp;
  PROBE_AFTER({
    probed = probedEnvironment(envp, env);
    graphMarkShared(); // the spawned image inherits what is not close-on-exec
  });
  return PROBE_REAL(posix_spawn)(pid, path, actions, attr, argv, probed);
}

PROBE_INTERCEPTOR_VERSIONED(int, posix_spawnp, "GLIBC_2.15", pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                  const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  ExecEnv env;
  char *const *probed = envp;
  PROBE_AFTER({
    probed = probedEnvironment(envp, env);
    graphMarkShared();
  });
  return PROBE_REAL(posix_spawnp)(pid, file, actions, attr, argv, probed);
}

// _exit() skips atexit handlers and destructors: write the report first.
PROBE_INTERCEPTOR(void, _exit, int status) {
  PROBE_AFTER(writeReport("_exit"));
  PROBE_REAL(_exit)(status);
  __builtin_unreachable();
}
PROBE_INTERCEPTOR(void, _Exit, int status) {
  PROBE_AFTER(writeReport("_exit"));
  PROBE_REAL(_Exit)(status);
  __builtin_unreachable();
}

// ---- load and unload ----------------------------------------------------------------------------
__attribute__((constructor(101))) static void probeLoad() {
  if (gInitialised.exchange(true))
    return;
  int savedErrno = errno;
  // Resolve everything now, in a single-threaded context, rather than lazily in a signal handler.
  resolveRegisteredInterceptors();

  static char messages[2048];
  parseConfig([](const char *name) -> const char * { return getenv(name); }, config(), messages, sizeof messages);
  if (messages[0])
    syscall(SYS_write, 2, messages, std::strlen(messages));
  refreshProcessInfo(true);
  if (config().dirUsable)
    writeReport("running");
  captureEnvironment();
  installThreadExitHook();
  // The parent: every socket open at fork() is now also the child's, so closing it here frees
  // nothing the graph could judge.
  pthread_atfork(nullptr, graphMarkShared, childAfterFork);
  resetPeriodic(nowNs());
  errno = savedErrno;
}

__attribute__((destructor)) static void probeUnload() { writeReport("exit"); }
