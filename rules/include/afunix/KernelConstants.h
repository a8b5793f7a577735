// Kernel constants that the checker, the probe and the kernel experiments all judge by. One place:
// ../shared/design/kernel-behaviour.md names where each comes from. Header-only and
// allocation-free, so the LD_PRELOAD probe can use it.
#pragma once

#include <cstdint>

namespace afunix::kernel {

// include/net/scm.h SCM_MAX_FD: more fds in one SCM_RIGHTS message fail with EINVAL.
inline constexpr int kScmMaxFd = 253;
// net/unix/garbage.c UNIX_INFLIGHT_SANE_USER (SCM_MAX_FD * 8, 6.8+ and 6.1.141/6.6.93): from this
// many fds in flight a user's sendmsg() carrying AF_UNIX socket fds may wait for the GC.
inline constexpr std::int64_t kUnixInflightSaneUser = kScmMaxFd * 8;
// net/unix/garbage.c UNIX_INFLIGHT_TRIGGER_GC: the GC is queued past this many AF_UNIX sockets in
// flight system-wide.
inline constexpr std::int64_t kUnixInflightTriggerGc = 16000;

// Address families (include/linux/socket.h).
inline constexpr int kAfUnix = 1;
inline constexpr int kAfInet = 2;
inline constexpr int kAfInet6 = 10;
inline constexpr int kAfNetlink = 16;
inline constexpr int kAfBluetooth = 31;

// Socket types (include/linux/net.h); SOCK_TYPE_MASK drops SOCK_CLOEXEC and SOCK_NONBLOCK.
inline constexpr int kSockStream = 1;
inline constexpr int kSockDgram = 2;
inline constexpr int kSockRaw = 3;
inline constexpr int kSockSeqpacket = 5;
inline constexpr int kSockTypeMask = 0xf;

// sendmsg() flags (include/linux/socket.h): MSG_DONTWAIT fails with EAGAIN instead of waiting
// for room at the peer.
inline constexpr int kMsgDontwait = 0x40;

// The first socket-activation fd (sd-daemon.h SD_LISTEN_FDS_START): what a service manager
// hands over starts after stdin, stdout and stderr.
inline constexpr int kListenFdsStart = 3;

// The level of the socket options below (include/uapi/asm-generic/socket.h); at another level
// (IPPROTO_IPV6) the same numbers name other options (16 is IPV6_UNICAST_HOPS).
inline constexpr int kSolSocket = 1;

// Socket options (include/uapi/asm-generic/socket.h): the credential options a receiver enables.
inline constexpr int kSoPassCred = 16;
inline constexpr int kSoPassSec = 34;
// Socket options newer than some libcs' headers (include/uapi/asm-generic/socket.h).
inline constexpr int kSoPassPidfd = 76;  // 6.5
inline constexpr int kSoPeerPidfd = 77;  // 6.5
inline constexpr int kSoPassRights = 83; // 6.16
inline constexpr int kScmPidfd = 0x04;   // 6.5

} // namespace afunix::kernel
