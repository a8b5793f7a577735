// Call sites, short stacks, modules and socket identity: what a finding says about *where* and
// *what*. Everything here runs only when a finding is first seen at a call site (or, for
// origins, stores one word when a socket is created), never on the counting hot path.
//
// Stack capture uses libgcc's _Unwind_Backtrace (linked statically into the probe, symbols not
// exported), chosen over a frame-pointer walk because distribution binaries are built without frame
// pointers: a frame-pointer walk would stop at (or, worse, invent) the caller of the function
// that made the call. Why it is safe where the probe runs:
//   - in a signal handler: libgcc 12 finds each frame's unwind table with glibc's
//     _dl_find_object(), which is lock-free and allocation-free (it replaced the dl_iterate_phdr
//     walk, which takes the loader lock); the unwinder itself keeps its state on the stack and
//     steps through signal frames. A handler that interrupts a capture on its own thread does not
//     start a second one (thread-local guard): that occurrence keeps frame 0 only.
//   - after fork: no lock is involved, and glibc re-initialises the loader's locks in the child.
//   - no allocation anywhere (the probe's copy of libgcc has no registered frame objects, the
//     only path that would allocate).
// Frame 0 never needs unwinding: it is the interceptor's own return address.
#include "ProbeCore.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <unwind.h>

// glibc 2.35+ (Debian 12 has 2.36); weak so that an older libc only loses module names.
extern "C" int _dl_find_object(void *address, struct dl_find_object *result) noexcept __attribute__((weak));

namespace afunix::probe {

namespace {

// ---- memory that may not be there ---------------------------------------------------------------

std::atomic<int> gVmReadv{1}; // 1 = works, 0 = refused by the kernel (seccomp): do not retry

} // namespace

bool copyFromProcess(void *to, const void *from, std::size_t length) {
  if (!length)
    return true;
  if (!from || !gVmReadv.load(std::memory_order_relaxed))
    return false;
  int saved = errno;
  iovec local{to, length};
  iovec remote{const_cast<void *>(from), length};
  // Every argument as a long: syscall() is variadic, and the sixth (flags) is passed on the stack,
  // where an int 0 would leave the upper half of the slot to chance (EINVAL with garbage flags).
  long n = syscall(SYS_process_vm_readv, syscall(SYS_getpid), &local, 1L, &remote, 1L, 0L);
  if (n < 0 && (errno == ENOSYS || errno == EPERM))
    gVmReadv.store(0, std::memory_order_relaxed);
  errno = saved;
  return n == static_cast<long>(length);
}

namespace {

// ---- modules ------------------------------------------------------------------------------------

struct ModuleSlot {
  std::atomic<uintptr_t> key{0}; // mapped start; 0 = free
  std::atomic<bool> ready{false};
  Module module;
};
constinit ModuleSlot gModules[kModules];
std::atomic<int> gModuleCount{0};

// The GNU build-id of the object, read from its program headers in memory. Its ELF header is at
// the load bias for PIE programs and shared objects (first PT_LOAD at address 0), else at the start
// of its first mapping; glibc's _dl_find_object has been seen to report the main program's text
// segment as its start, so the bias is tried first.
void readBuildId(Module &m) {
  ElfW(Ehdr) eh;
  uintptr_t header = 0;
  for (uintptr_t at : {m.bias, m.start})
    if (at && copyFromProcess(&eh, reinterpret_cast<const void *>(at), sizeof eh) &&
        std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0) {
      header = at;
      break;
    }
  if (!header || eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum > 64)
    return;
  for (int i = 0; i < eh.e_phnum; ++i) {
    ElfW(Phdr) ph;
    if (!copyFromProcess(&ph, reinterpret_cast<const char *>(header) + eh.e_phoff + i * sizeof ph, sizeof ph))
      return;
    if (ph.p_type != PT_NOTE || ph.p_filesz > 4096)
      continue;
    alignas(8) unsigned char notes[4096];
    if (!copyFromProcess(notes, reinterpret_cast<const void *>(m.bias + ph.p_vaddr), ph.p_filesz))
      continue;
    for (std::size_t at = 0; at + sizeof(ElfW(Nhdr)) <= ph.p_filesz;) {
      ElfW(Nhdr) nh;
      std::memcpy(&nh, notes + at, sizeof nh);
      std::size_t name = at + sizeof nh, desc = name + ((nh.n_namesz + 3) & ~3u);
      std::size_t next = desc + ((nh.n_descsz + 3) & ~3u);
      if (next > ph.p_filesz)
        break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !std::memcmp(notes + name, "GNU", 4) &&
          nh.n_descsz <= sizeof m.buildId) {
        std::memcpy(m.buildId, notes + desc, nh.n_descsz);
        m.buildIdLength = static_cast<uint8_t>(nh.n_descsz);
        return;
      }
      at = next;
    }
  }
}

void copyPath(char *to, std::size_t size, const char *from) {
  std::size_t i = 0;
  for (; from && from[i] && i + 1 < size; ++i)
    to[i] = from[i];
  to[i] = 0;
}

// ---- stacks ---------------------------------------------------------------------------------------

__attribute__((tls_model("initial-exec"))) thread_local bool tCapturing = false;

struct Unwound {
  uintptr_t pcs[32];
  int count = 0;
};

_Unwind_Reason_Code collect(struct _Unwind_Context *context, void *arg) {
  auto *u = static_cast<Unwound *>(arg);
  if (u->count >= 32)
    return _URC_END_OF_STACK;
  u->pcs[u->count++] = _Unwind_GetIP(context);
  return _URC_NO_REASON;
}

// ---- origins --------------------------------------------------------------------------------------
// One word per fd: [63:48] generation, [47] received, [46:0] call site (user space fits 47 bits).
constinit std::atomic<uint64_t> gOrigins[kFdTableSize] = {};
constexpr uint64_t kPcMask = (1ull << 47) - 1;

} // namespace

int moduleOf(uintptr_t pc) {
  if (!pc || !_dl_find_object)
    return -1;
  dl_find_object found;
  if (_dl_find_object(reinterpret_cast<void *>(pc), &found) != 0)
    return -1;
  uintptr_t start = reinterpret_cast<uintptr_t>(found.dlfo_map_start);
  for (int i = 0; i < kModules; ++i) {
    ModuleSlot &slot = gModules[i];
    uintptr_t key = slot.key.load(std::memory_order_acquire);
    if (key == start)
      return i;
    if (key)
      continue;
    uintptr_t expected = 0;
    if (!slot.key.compare_exchange_strong(expected, start, std::memory_order_acq_rel)) {
      if (expected == start)
        return i;
      continue;
    }
    Module &m = slot.module;
    m.start = start;
    m.end = reinterpret_cast<uintptr_t>(found.dlfo_map_end);
    m.bias = found.dlfo_link_map ? found.dlfo_link_map->l_addr : 0;
    const char *name = found.dlfo_link_map ? found.dlfo_link_map->l_name : nullptr;
    // The main program's link map has an empty name: it is /proc/self/exe, read at load.
    copyPath(m.path, sizeof m.path, name && *name ? name : processInfo().exe);
    readBuildId(m);
    gModuleCount.fetch_add(1, std::memory_order_relaxed);
    slot.ready.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

int moduleCount() {
  int n = 0;
  for (const auto &slot : gModules)
    n += slot.key.load(std::memory_order_acquire) != 0;
  return n;
}

const Module *moduleAt(int index) {
  if (index < 0 || index >= kModules || !gModules[index].ready.load(std::memory_order_acquire))
    return nullptr;
  return &gModules[index].module;
}

int captureStack(uintptr_t site, uintptr_t *frames, int max) {
  if (!site || max < 1)
    return 0;
  frames[0] = site;
  if (!config().stacks || max < 2 || tCapturing)
    return 1;
  tCapturing = true;
  int saved = errno;
  Unwound u;
  _Unwind_Backtrace(collect, &u);
  errno = saved;
  tCapturing = false;
  // The probe's own frames come first; the program's start at the interceptor's return address.
  int from = -1;
  for (int i = 0; i < u.count; ++i)
    if (u.pcs[i] == site) {
      from = i;
      break;
    }
  if (from < 0)
    return 1;
  int n = 1;
  for (int i = from + 1; i < u.count && n < max; ++i)
    if (u.pcs[i])
      frames[n++] = u.pcs[i];
  return n;
}

void recordOrigin(int fd, uint16_t gen, uintptr_t site, Origin origin) {
  if (!FdTable::inRange(fd))
    return;
  uint64_t word = (static_cast<uint64_t>(gen) << 48) | (origin == Origin::Received ? 1ull << 47 : 0) |
                  (static_cast<uint64_t>(site) & kPcMask);
  gOrigins[fd].store(site ? word : 0, std::memory_order_relaxed);
}

uintptr_t originOf(int fd, uint16_t gen, Origin &origin) {
  origin = Origin::Unknown;
  if (!FdTable::inRange(fd))
    return 0;
  uint64_t word = gOrigins[fd].load(std::memory_order_relaxed);
  if (!word || (word >> 48) != gen)
    return 0;
  origin = (word >> 47) & 1 ? Origin::Received : Origin::Created;
  return static_cast<uintptr_t>(word & kPcMask);
}

void captureSocketIdentity(int fd, SocketIdentity &out) {
  out = SocketIdentity{};
  out.fd = fd;
  if (fd < 0)
    return;
  int saved = errno;
  FdState state = fdTable().peek(fd);
  struct stat st;
  if (syscall(SYS_fstat, fd, &st) == 0 && S_ISSOCK(st.st_mode)) {
    out.known = true;
    out.inode = st.st_ino;
    out.family = state.family;
    out.type = state.type;
    out.role = state.role;
    out.passcred = state.passcred;
    out.listening = state.listening;
    if (state.role == FdRole::PairEnd && state.hasPeer)
      out.pairFd = state.peerFd;
    sockaddr_un addr;
    socklen_t length = sizeof addr;
    auto copyAddress = [&](char *to, uint8_t &toLength) {
      if (addr.sun_family != AF_UNIX || length <= offsetof(sockaddr_un, sun_path))
        return; // unnamed
      std::size_t n = length - offsetof(sockaddr_un, sun_path);
      if (n > sizeof addr.sun_path)
        n = sizeof addr.sun_path;
      if (addr.sun_path[0]) // a path: up to its NUL
        n = strnlen(addr.sun_path, n);
      std::memcpy(to, addr.sun_path, n);
      toLength = static_cast<uint8_t>(n);
    };
    if (state.family == AF_UNIX) {
      if (syscall(SYS_getsockname, fd, &addr, &length) == 0)
        copyAddress(out.local, out.localLength);
      length = sizeof addr;
      if (syscall(SYS_getpeername, fd, &addr, &length) == 0)
        copyAddress(out.peer, out.peerLength);
      ucred cred;
      socklen_t credLength = sizeof cred;
      if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PEERCRED, &cred, &credLength) == 0 && cred.pid > 0) {
        out.peerKnown = true;
        out.peerPid = cred.pid;
        out.peerUid = cred.uid;
        out.peerGid = cred.gid;
      }
    }
    out.origin = originOf(fd, state.gen, out.originKind);
  }
  errno = saved;
}

} // namespace afunix::probe
