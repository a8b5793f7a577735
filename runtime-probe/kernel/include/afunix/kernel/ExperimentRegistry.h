// The names of the experiments `afunix-probe kernel` runs, in the order it runs them, and what
// each shows. One list: the rule catalog's `experiment:` keys are checked against it when the
// catalog is loaded (afunix-rules-gen fails the build on an unknown key), and the experiment
// table that runs them (KernelReport.cpp) is checked against it when it compiles. Header-only and
// dependency-free, so the catalog loader can include it without linking the experiments.
#pragma once

#include <cstddef>
#include <string_view>

namespace afunix::kernel {

struct ExperimentKey {
  const char *name;
  const char *shows; // one line: what is set up and observed
  bool heavy;        // puts thousands of sockets in flight for seconds: skipped by --quick
  bool inflight;     // depends on what else is in flight (per user, or machine-wide): takes turns
};

inline constexpr ExperimentKey kExperimentKeys[] = {
    {"creds", "the credentials truth table: socket types x send methods x when SO_PASSCRED is set",
     false, false},
    {"listener_inherit", "SO_PASSCRED set on a listener after connect(), before accept(): does the "
                         "accepted socket have it",
     false, false},
    {"features", "SO_PASSPIDFD, SO_PEERPIDFD and SO_PASSRIGHTS on real sockets", false, false},
    {"passcred_inet", "setsockopt(SO_PASSCRED / SO_PASSPIDFD) on an AF_INET socket", false, false},
    {"accept_needs_listener", "accept4() on a listener, an accepted socket, a client, a "
                              "socketpair() end, an unlistened and a datagram socket, a pipe; "
                              "recvmsg() on a listener",
     false, false},
    {"fd_limit", "the most fds one SCM_RIGHTS message may carry, by bisection", false, false},
    {"fd_limit_total", "SCM_MAX_FD counted over one SCM_RIGHTS cmsg or over several in one message",
     false, false},
    {"etoomanyrefs", "one-fd messages an unprivileged user keeps in flight before ETOOMANYREFS",
     false, true},
    {"etoomanyrefs_exempt", "ETOOMANYREFS for a user past RLIMIT_NOFILE holding no capability, "
                            "only CAP_SYS_RESOURCE, or only CAP_SYS_ADMIN",
     false, true},
    {"gc", "median sendmsg() time with no fd and with an AF_UNIX fd, idle and with 17000 sockets "
           "in flight, without and with reference cycles",
     true, true},
    {"gc_wait_conditions", "which sends wait for a GC run: in flight below and above the GC "
                           "trigger, cycles open or closed, AF_UNIX / other / no fds, another uid",
     true, true},
    {"gc_shapes", "the reference shapes of the kernel's scm_rights selftest: what is left in "
                  "/proc/net/unix after the closes, until a GC run, and when every fd was received",
     false, true},
    {"fd_cycle_own_queue", "a socketpair end sent over its peer, a client sent over its accepted "
                           "socket, an end sent over itself: what outlives the closes",
     false, true},
    {"fd_cycle_own_address", "a datagram socket sent to its own bound address, and to another "
                             "socket's: what outlives the close",
     false, true},
    {"creds_without_passcred", "a reader that never enables SO_PASSCRED: plain sends, explicit "
                               "SCM_CREDENTIALS, SO_PASSCRED on the sender only",
     false, false},
    {"passcred_handed_over", "a socket made by another process (a service manager) that queued "
                             "data before the receiving program enables SO_PASSCRED, or never does",
     false, false},
    {"passcred_accepted_late", "SO_PASSCRED on an accepted socket after accept(): messages sent "
                               "before accept(), between, after; a read before the setsockopt",
     false, false},
    {"passcred_dgram_late", "SO_PASSCRED on a bound datagram socket after peers sent to it",
     false, false},
    {"passcred_socketpair_late", "SO_PASSCRED on a socketpair() end after its peer wrote", false,
     false},
    {"passcred_client_late", "a client that sends its request, then enables SO_PASSCRED, then "
                             "reads the reply; and one that enables it before the request",
     false, false},
    {"passcred_listener_after_listen", "SO_PASSCRED on a listener after listen(): a client that "
                                       "connected before it and one that connected after",
     false, false},
    {"passcred_listener_after_accept", "SO_PASSCRED on a listener after it accepted a connection",
     false, false},
    {"meminit", "whether the heap (every AF_UNIX skb) is zeroed on allocation / free", false, false},
};
inline constexpr std::size_t kExperimentCount = sizeof kExperimentKeys / sizeof *kExperimentKeys;

inline constexpr const ExperimentKey *findExperimentKey(std::string_view name) {
  for (const ExperimentKey &key : kExperimentKeys)
    if (name == key.name)
      return &key;
  return nullptr;
}

} // namespace afunix::kernel
