// Section B of kernel-behaviour.md, measured: which in-flight sockets outlive their last close and
// wait for the unix GC. The evidence is the kernel's own table of sockets (/proc/net/unix of the
// experiment's network namespace): a socket freed by close() leaves it at once, one that only the
// GC can free stays until a GC run. Our own closes are ordered so that none of them starts a run
// while garbage waits to be seen: sockets that are not in flight first (their release starts a
// run while the in-flight ones are still open, so nothing is garbage yet), in-flight ones last
// (closing those frees nothing, so starts nothing).
#include <cstdio>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <cstring>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

#include "Sockets.h"
#include "afunix/kernel/Experiments.h"
#include "afunix/kernel/gc_shapes.h"

namespace afunix::kernel {

namespace {

const char *typeName(int type) {
  return type == SOCK_STREAM ? "stream" : type == SOCK_DGRAM ? "dgram" : "seqpacket";
}

// Drains every message queued on `fd` (closing the fds that arrive).
void drain(int fd) {
  char buf[16];
  while (recvAndCloseFds(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
}

// A GC run started by something else on the machine (any AF_UNIX close while fds are in flight)
// between our last close and the look at /proc/net/unix frees the garbage before it is seen: an
// observation that found nothing where garbage was expected is repeated, a few times.
constexpr int kAttempts = 4;

// Releasing a socket that is not in flight starts a GC run, asynchronously (a work item): let it
// finish before the in-flight sockets are closed, or it may find them garbage already and free
// them before they are looked at.
void letGcRun() { usleep(20000); }

// The shape 6.18.44's GC never frees (the selftest's mixed_lowpoint): built as garbage only where
// that cannot be charged to the user running the experiment.
bool mayNeverBeFreed(const afunix_gc_shape &shape) {
  return std::string(shape.name) == "mixed_lowpoint";
}

} // namespace

namespace {
ShapeOutcome buildGcShape(const afunix_gc_shape &shape, int type, bool receiveFirst);
} // namespace

ShapeOutcome runGcShape(const afunix_gc_shape &shape, int type, bool receiveFirst) {
  if (geteuid() != 0)
    return buildGcShape(shape, type, receiveFirst);
  // As root: in a child running as AFUNIX_GC_SHAPE_UID, so that garbage a GC never frees is not
  // charged to root's fds in flight.
  ShapeOutcome out;
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    out.error = "pipe2: " + errnoName(errno);
    return out;
  }
  pid_t child = fork();
  if (child == 0) {
    close(pipefd[0]);
    ShapeOutcome got;
    if (setgroups(0, nullptr) != 0 || setgid(AFUNIX_GC_SHAPE_UID) != 0 || setuid(AFUNIX_GC_SHAPE_UID) != 0)
      got.error = "cannot switch to uid " + std::to_string(AFUNIX_GC_SHAPE_UID) + ": " + errnoName(errno);
    else
      got = buildGcShape(shape, type, receiveFirst);
    char line[256];
    int n = std::snprintf(line, sizeof line, "%d %d %d %s", got.left, got.freedByGc ? 1 : 0,
                          got.afterGc, got.error.c_str());
    (void)!write(pipefd[1], line, static_cast<std::size_t>(n));
    _exit(0);
  }
  close(pipefd[1]);
  char line[256] = {};
  std::size_t have = 0;
  for (ssize_t n; child > 0 && (n = read(pipefd[0], line + have, sizeof line - 1 - have)) != 0;) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    have += static_cast<std::size_t>(n);
  }
  close(pipefd[0]);
  if (child > 0)
    waitForChild(child);
  int freed = 0, consumed = 0;
  if (child < 0 || std::sscanf(line, "%d %d %d %n", &out.left, &freed, &out.afterGc, &consumed) < 3)
    out.error = child < 0 ? "fork: " + errnoName(errno) : std::string("the shape's process ended without a result");
  else
    out.error = line + consumed;
  out.freedByGc = freed;
  return out;
}

namespace {
ShapeOutcome buildGcShape(const afunix_gc_shape &shape, int type, bool receiveFirst) {
  ShapeOutcome out;
  std::vector<Pair> pairs;
  for (int v = 0; v < shape.vertices; ++v) {
    pairs.push_back(unixPair(type));
    if (!pairs.back().a) {
      out.error = std::string("socketpair: ") + errnoName(errno);
      return out;
    }
  }
  std::vector<unsigned long> inodes;
  for (const Pair &p : pairs)
    inodes.push_back(inodeOf(p.a.get()));
  for (int i = 0; i < shape.sends; ++i) {
    int fd = pairs[static_cast<std::size_t>(shape.send[i].inflight)].a.get();
    int fds[2] = {fd, fd};
    if (sendWithFds(pairs[static_cast<std::size_t>(shape.send[i].receiver)].b.get(), fds, 2,
                    MSG_DONTWAIT) != 1) {
      out.error = std::string("sendmsg: ") + errnoName(errno);
      return out;
    }
  }
  if (receiveFirst)
    for (const Pair &p : pairs)
      drain(p.a.get());
  for (Pair &p : pairs)
    p.b.reset();
  for (int v = 0; v < shape.vertices; ++v)
    if (!afunix_gc_shape_in_flight(&shape, v))
      pairs[static_cast<std::size_t>(v)].a.reset();
  letGcRun();
  for (Pair &p : pairs)
    p.a.reset();
  out.left = static_cast<int>(listedInodes(inodes).size());
  out.freedByGc = out.left == 0 || collectGarbage(inodes, 2.0);
  out.afterGc = static_cast<int>(listedInodes(inodes).size());
  return out;
}
} // namespace

Observation gcShapesExperiment() {
  Observation o;
  o.experiment = "gc_shapes";
  bool allAsExpected = true, unobserved = false;
  std::string counts, notFreed, receivedLeft, unsettled;
  for (int type : {SOCK_STREAM, SOCK_DGRAM}) {
    for (int s = 0; s < AFUNIX_GC_SHAPE_COUNT; ++s) {
      const afunix_gc_shape &shape = afunix_gc_shapes[s];
      const std::string key = std::string("gc.shapes.") + typeName(type) + "." + shape.name;
      ShapeOutcome garbage;
      int attempt = 0;
      if (geteuid() != 0 && mayNeverBeFreed(shape)) {
        o.note(std::string(typeName(type)) + " " + shape.name + ": not built as garbage: where a "
               "GC never frees it, its fds would stay in flight for this user until reboot; as "
               "root it is built as uid " + std::to_string(AFUNIX_GC_SHAPE_UID));
        garbage.left = shape.held; // not observed: reported as null below
        garbage.afterGc = 0;
        garbage.error = "";
        unobserved = true;
      } else {
        do
          garbage = runGcShape(shape, type, false);
        while (garbage.error.empty() && garbage.left != shape.held && ++attempt < kAttempts);
      }
      ShapeOutcome received = runGcShape(shape, type, true);
      if (!garbage.error.empty() || !received.error.empty()) {
        o.fail(shape.name + std::string(": ") + garbage.error + received.error);
        return o;
      }
      if (unobserved) {
        o.set(key + ".left", Value::null());
        o.set(key + ".after_gc", Value::null());
        o.set(key + ".received_left", Value::of(received.left));
        unobserved = false;
        continue;
      }
      o.set(key + ".left", Value::of(garbage.left));
      o.set(key + ".after_gc", Value::of(garbage.afterGc));
      o.set(key + ".received_left", Value::of(received.left));
      char line[240];
      std::snprintf(line, sizeof line,
                    "%s %s: %d vertices, %d sends; after every close %d of them still listed, "
                    "%d after a GC run%s; with every fd received first: %d listed",
                    typeName(type), shape.name, shape.vertices, shape.sends, garbage.left,
                    garbage.afterGc, attempt ? " (an outside GC run freed it first; repeated)" : "",
                    received.left);
      o.note(line);
      allAsExpected = allAsExpected && garbage.left == shape.held && garbage.afterGc == 0 &&
                      received.left == 0;
      if (type == SOCK_STREAM)
        counts += (counts.empty() ? "" : ", ") + std::string(shape.name) + " " +
                  std::to_string(garbage.left);
      auto add = [](std::string &list, const std::string &item) {
        if (list.find(item) == std::string::npos)
          list += (list.empty() ? "" : ", ") + item;
      };
      if (mayNeverBeFreed(shape))
        add(unsettled, shape.name);
      else if (garbage.afterGc > 0)
        add(notFreed, shape.name);
      if (received.left > 0)
        add(receivedLeft, shape.name);
    }
  }
  o.set("gc.shapes.as_selftest", Value::of(allAsExpected));
  o.verdict = "after every fd was closed, each shape left its cycles and what they hold in "
              "/proc/net/unix (stream: " + counts + " sockets), freed by a GC run" +
              (notFreed.empty() ? std::string()
                                : " except " + notFreed + ", which GC runs here never freed (the "
                                  "selftest expects it freed)") +
              // Whether a run frees it changed from one run to the next on 6.18.44: a verdict a
              // rule page quotes holds only what repeats (after_gc has this run's count).
              (unsettled.empty() ? std::string()
                                 : "; " + unsettled + " aside, which GC runs on 6.18.44 freed in "
                                   "some experiments and not in others (the selftest expects it "
                                   "freed)") +
              "; with every fd received before the closes, " +
              (receivedLeft.empty() ? std::string("none was left") : receivedLeft + " still left some");
  o.implies("Sockets in flight in a cycle (of any length, with cross edges) outlive every close: "
            "only a GC run frees them, and until then each run walks them. Receiving every fd "
            "before closing leaves nothing.",
            {"afunix-fd-cycle"});
  return o;
}

Observation fdCycleOwnQueueExperiment() {
  Observation o;
  o.experiment = "fd_cycle_own_queue";
  struct Case {
    const char *name;
    int left = -1;
    bool freedByGc = false;
  };
  auto observe = [&](Case &c, const std::vector<unsigned long> &inodes) {
    c.left = static_cast<int>(listedInodes(inodes).size());
    c.freedByGc = c.left == 0 || collectGarbage(inodes, 2.0);
  };
  std::string verdictParts;
  for (int type : {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET}) {
    Case ownQueue{"own_queue"}, overItself{"over_itself"}, receivedBack{"received_back"};
    for (int attempt = 0; attempt < kAttempts && ownQueue.left <= 0; ++attempt) {
      // sv[1] sent over sv[0]: it lands on its own receive queue.
      Pair p = unixPair(type);
      int fd = p.b.get();
      if (sendWithFds(p.a.get(), &fd, 1) != 1) {
        o.fail(std::string("sendmsg: ") + errnoName(errno));
        return o;
      }
      std::vector<unsigned long> inodes = {inodeOf(p.a.get()), inodeOf(p.b.get())};
      p.a.reset(); // not in flight: released now
      letGcRun();
      p.b.reset(); // in flight on its own queue: nothing to release
      observe(ownQueue, inodes);
    }
    {
      // sv[0] sent over sv[0]: it lands on sv[1]'s queue, and sv[1]'s release flushes it.
      Pair p = unixPair(type);
      int fd = p.a.get();
      if (sendWithFds(p.a.get(), &fd, 1) != 1) {
        o.fail(std::string("sendmsg: ") + errnoName(errno));
        return o;
      }
      std::vector<unsigned long> inodes = {inodeOf(p.a.get()), inodeOf(p.b.get())};
      p.a.reset();
      p.b.reset();
      overItself.left = static_cast<int>(listedInodes(inodes).size());
    }
    {
      // The program's fix: receive what it sent before closing.
      Pair p = unixPair(type);
      int fd = p.b.get();
      if (sendWithFds(p.a.get(), &fd, 1) != 1) {
        o.fail(std::string("sendmsg: ") + errnoName(errno));
        return o;
      }
      drain(p.b.get());
      std::vector<unsigned long> inodes = {inodeOf(p.a.get()), inodeOf(p.b.get())};
      p.a.reset();
      p.b.reset();
      receivedBack.left = static_cast<int>(listedInodes(inodes).size());
    }
    const std::string base = std::string("fd_cycle.") + typeName(type) + ".";
    o.set(base + "own_queue_left", Value::of(ownQueue.left));
    o.set(base + "own_queue_freed_by_gc", Value::of(ownQueue.freedByGc));
    o.set(base + "over_itself_left", Value::of(overItself.left));
    o.set(base + "received_back_left", Value::of(receivedBack.left));
    o.note(std::string(typeName(type)) + " socketpair: sv[1] sent over sv[0], both closed: " +
           std::to_string(ownQueue.left) + " of 2 sockets still listed" +
           (ownQueue.left ? (ownQueue.freedByGc ? ", gone after a GC run" : ", NOT freed by a GC run")
                          : "") +
           "; sv[0] sent over sv[0]: " + std::to_string(overItself.left) +
           " listed after the closes; sv[1] over sv[0] received back before the closes: " +
           std::to_string(receivedBack.left) + " listed");
  }
  // A connection: the connecting socket sent over the accepted one lands on its own queue.
  int connectedLeft = -1;
  bool connectedFreed = false;
  for (int attempt = 0; attempt < kAttempts && connectedLeft <= 0; ++attempt) {
    Fd listener(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    socklen_t len = sizeof(sa_family_t);
    if (!listener || bind(listener.get(), reinterpret_cast<sockaddr *>(&addr), len) != 0 ||
        listen(listener.get(), 4) != 0) {
      o.fail(std::string("listener: ") + errnoName(errno));
      return o;
    }
    len = sizeof addr;
    getsockname(listener.get(), reinterpret_cast<sockaddr *>(&addr), &len);
    Fd client(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!client || connect(client.get(), reinterpret_cast<sockaddr *>(&addr), len) != 0) {
      o.fail(std::string("connect: ") + errnoName(errno));
      return o;
    }
    Fd server(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    int fd = client.get();
    if (!server || sendWithFds(server.get(), &fd, 1) != 1) {
      o.fail(std::string("accept/sendmsg: ") + errnoName(errno));
      return o;
    }
    std::vector<unsigned long> inodes = {inodeOf(client.get()), inodeOf(server.get())};
    server.reset();
    listener.reset();
    letGcRun();
    client.reset();
    connectedLeft = static_cast<int>(listedInodes(inodes).size());
    connectedFreed = connectedLeft == 0 || collectGarbage(inodes, 2.0);
  }
  o.set("fd_cycle.connected_own_queue_left", Value::of(connectedLeft));
  o.set("fd_cycle.connected_own_queue_freed_by_gc", Value::of(connectedFreed));
  o.note("stream connection: the connecting socket sent over its accepted socket, all closed: " +
         std::to_string(connectedLeft) + " of 2 still listed" +
         (connectedLeft ? (connectedFreed ? ", gone after a GC run" : ", NOT freed by a GC run") : ""));

  const Value *own = o.get("fd_cycle.stream.own_queue_left");
  const Value *self = o.get("fd_cycle.stream.over_itself_left");
  bool asDocumented = true;
  for (int type : {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET}) {
    const std::string base = std::string("fd_cycle.") + typeName(type) + ".";
    asDocumented = asDocumented && o.get(base + "own_queue_left")->integer == 1 &&
                   o.get(base + "own_queue_freed_by_gc")->boolean &&
                   o.get(base + "over_itself_left")->integer == 0 &&
                   o.get(base + "received_back_left")->integer == 0;
  }
  asDocumented = asDocumented && connectedLeft == 1 && connectedFreed;
  o.set("fd_cycle.own_queue_needs_gc", Value::of(asDocumented));
  o.verdict = asDocumented
                  ? "a socket in its own receive queue (sv[1] sent over sv[0]; a client sent over "
                    "its accepted socket) outlived every close until a GC run, for stream, dgram "
                    "and seqpacket; sv[0] sent over sv[0] was freed by the closes, and so was one "
                    "received back before them"
                  : "NOT as documented: see evidence (stream: own queue " +
                        std::to_string(own->integer) + " left, over itself " +
                        std::to_string(self->integer) + ")";
  o.implies("A socket queued on its own receive queue is garbage only the GC frees once closed; "
            "a socket sent over itself is queued on its peer and freed when the peer closes: no "
            "cycle.",
            {"afunix-fd-cycle"});
  return o;
}

Observation fdCycleOwnAddressExperiment() {
  Observation o;
  o.experiment = "fd_cycle_own_address";
  auto boundDgram = [](sockaddr_un &addr, socklen_t &len) {
    Fd s(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    addr = sockaddr_un{};
    addr.sun_family = AF_UNIX;
    len = sizeof(sa_family_t); // autobind: a fresh abstract name
    if (!s || bind(s.get(), reinterpret_cast<sockaddr *>(&addr), len) != 0)
      return Fd();
    len = sizeof addr;
    getsockname(s.get(), reinterpret_cast<sockaddr *>(&addr), &len);
    return s;
  };
  auto sendTo = [](int from, int fd, const sockaddr_un &to, socklen_t len) {
    char byte = 'x';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_name = const_cast<sockaddr_un *>(&to);
    msg.msg_namelen = len;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(from, &msg, MSG_DONTWAIT);
  };
  int ownLeft = -1;
  bool ownFreed = false;
  for (int attempt = 0; attempt < kAttempts && ownLeft <= 0; ++attempt) {
    sockaddr_un addr;
    socklen_t len;
    Fd s = boundDgram(addr, len);
    if (!s || sendTo(s.get(), s.get(), addr, len) != 1) {
      o.fail(std::string("bound dgram socket sending itself to its own address: ") + errnoName(errno));
      return o;
    }
    std::vector<unsigned long> inodes = {inodeOf(s.get())};
    s.reset();
    ownLeft = static_cast<int>(listedInodes(inodes).size());
    ownFreed = ownLeft == 0 || collectGarbage(inodes, 2.0);
  }
  int otherLeft = -1;
  {
    sockaddr_un addr;
    socklen_t len;
    Fd receiver = boundDgram(addr, len);
    Fd sender(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!receiver || !sender || sendTo(sender.get(), sender.get(), addr, len) != 1) {
      o.fail(std::string("dgram socket sending itself to another socket: ") + errnoName(errno));
      return o;
    }
    std::vector<unsigned long> inodes = {inodeOf(sender.get()), inodeOf(receiver.get())};
    sender.reset();
    receiver.reset();
    otherLeft = static_cast<int>(listedInodes(inodes).size());
  }
  // Without a destination an unconnected datagram socket sends nothing at all.
  std::string unconnected;
  {
    Fd s(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    int fd = s.get();
    unconnected = sendWithFds(s.get(), &fd, 1, MSG_DONTWAIT) == 1 ? "sent" : errnoName(errno);
  }
  o.set("fd_cycle.own_address_left", Value::of(ownLeft));
  o.set("fd_cycle.own_address_freed_by_gc", Value::of(ownFreed));
  o.set("fd_cycle.other_address_left", Value::of(otherLeft));
  o.set("fd_cycle.unconnected_self_send", Value::of(unconnected));
  o.note("bound dgram socket sent to its own address, then closed: " + std::to_string(ownLeft) +
         " of 1 still listed" + (ownLeft ? (ownFreed ? ", gone after a GC run" : ", NOT freed by a GC run") : ""));
  o.note("dgram socket sent to another bound socket, both closed: " + std::to_string(otherLeft) +
         " of 2 still listed");
  o.note("unconnected, unbound dgram socket sending itself with no destination: " + unconnected);
  bool asDocumented = ownLeft == 1 && ownFreed && otherLeft == 0 && unconnected != "sent";
  o.verdict = asDocumented
                  ? "a datagram socket sent to its own bound address outlived its close until a "
                    "GC run; sent to another socket's address it was freed by the closes; with "
                    "no destination the send failed (" + unconnected + ") and queued nothing"
                  : "NOT as documented: see evidence";
  o.implies("The one way a socket sent over itself ends in its own queue: a datagram socket "
            "sending itself to its own bound address.",
            {"afunix-fd-cycle"});
  return o;
}

} // namespace afunix::kernel
