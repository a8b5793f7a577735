// Section A of kernel-behaviour.md, measured: when the kernel attaches credentials to a message,
// when it delivers them, how listener flags are inherited, and which identity options exist.
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "Sockets.h"
#include "afunix/kernel/Experiments.h"

namespace afunix::kernel {

namespace {

const char *typeName(int type) {
  switch (type) {
  case SOCK_STREAM: return "stream";
  case SOCK_DGRAM: return "dgram";
  case SOCK_SEQPACKET: return "seqpacket";
  }
  return "unknown";
}

const char *methodName(SendMethod m) {
  switch (m) {
  case SendMethod::Write: return "write";
  case SendMethod::Sendmsg: return "sendmsg";
  case SendMethod::SendmsgExplicitCreds: return "sendmsg_creds";
  }
  return "?";
}

const char *timingName(PasscredTiming t) {
  switch (t) {
  case PasscredTiming::Receiver: return "receiver";
  case PasscredTiming::Sender: return "sender";
  case PasscredTiming::Neither: return "neither";
  case PasscredTiming::Late: return "late";
  case PasscredTiming::Both: return "both";
  }
  return "?";
}

constexpr int kSocketTypes[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET};
constexpr SendMethod kMethods[] = {SendMethod::Write, SendMethod::Sendmsg,
                                   SendMethod::SendmsgExplicitCreds};
constexpr PasscredTiming kTimings[] = {PasscredTiming::Receiver, PasscredTiming::Sender,
                                       PasscredTiming::Neither, PasscredTiming::Late,
                                       PasscredTiming::Both};

bool sendOne(int fd, SendMethod method) {
  char byte = 'm';
  if (method == SendMethod::Write)
    return write(fd, &byte, 1) == 1;
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))] = {};
  if (method == SendMethod::SendmsgExplicitCreds) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_CREDENTIALS;
    c->cmsg_len = CMSG_LEN(sizeof(ucred));
    ucred cred{getpid(), getuid(), getgid()};
    std::memcpy(CMSG_DATA(c), &cred, sizeof cred);
  }
  return sendmsg(fd, &msg, MSG_NOSIGNAL) == 1;
}

// Reads one message (without blocking: it was queued before) and classifies its credentials.
std::string receiveCredentials(int fd) {
  char byte;
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred)) + CMSG_SPACE(sizeof(int)) + 64];
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n != 1)
    return "error: recvmsg " + (n < 0 ? errnoName(errno) : std::to_string(n) + " bytes");
  std::string result = "none";
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET)
      continue;
    if (c->cmsg_type == SCM_RIGHTS || c->cmsg_type == kScmPidfd) {
      int extra;
      std::memcpy(&extra, CMSG_DATA(c), sizeof extra);
      close(extra);
      continue;
    }
    if (c->cmsg_type != SCM_CREDENTIALS)
      continue;
    ucred cred;
    std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
    if (cred.pid == getpid() && cred.uid == getuid() && cred.gid == getgid())
      result = "creds";
    else if (cred.pid == 0)
      result = "pid0";
    else
      result = "other(pid=" + std::to_string(cred.pid) + ",uid=" + std::to_string(cred.uid) + ")";
  }
  return result;
}

// A listener on a fresh autobound abstract name: unique without picking a name ourselves.
Fd autoboundListener(int type, sockaddr_un &addr, socklen_t &len) {
  Fd listener(socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
  if (!listener)
    return {};
  sockaddr_un any{};
  any.sun_family = AF_UNIX;
  if (bind(listener.get(), reinterpret_cast<sockaddr *>(&any), sizeof(sa_family_t)) != 0)
    return {};
  len = sizeof addr;
  if (getsockname(listener.get(), reinterpret_cast<sockaddr *>(&addr), &len) != 0)
    return {};
  if (listen(listener.get(), 8) != 0)
    return {};
  return listener;
}

Fd connectTo(int type, const sockaddr_un &addr, socklen_t len) {
  Fd client(socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
  if (!client || connect(client.get(), reinterpret_cast<const sockaddr *>(&addr), len) != 0)
    return {};
  return client;
}

// A stream or seqpacket connection to an autobound listener: client, and the accepted socket
// (accept() happens when `accept` is called, so data can be sent to the embryo first).
struct Connection {
  Fd listener, client, server;
  std::string error; // the set-up step that failed, as connection() leaves it
  sockaddr_un addr{};
  socklen_t len = 0;
  bool open(int type) {
    listener = autoboundListener(type, addr, len);
    if (!listener)
      return false;
    client = connectTo(type, addr, len);
    return static_cast<bool>(client);
  }
  bool accept() {
    server = Fd(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    return static_cast<bool>(server);
  }
};

// One connection of `type` on a fresh listener, accepted now or left for the caller to accept.
Connection connection(int type, bool acceptNow) {
  Connection c;
  if (!c.open(type) || (acceptNow && !c.accept()))
    c.error = "error: set-up " + errnoName(errno);
  return c;
}

// The windows afunix-passcred-too-late's variants name, measured on one connection each: what a
// message gets, depending on when it was queued against the SO_PASSCRED that lets it be read.
// Keys under creds.window.<type>.
void connectionWindows(Observation &o, int type) {
  const std::string base = std::string("creds.window.") + typeName(type) + ".";
  auto sendByte = [](int fd) { return sendOne(fd, SendMethod::Write); };
  // A step that failed left its value empty: say which errno it left.
  auto set = [&](const char *key, const std::string &value) {
    o.set(base + key, Value::of(value.empty() ? "error: " + errnoName(errno) : value));
  };
  { // accepted-socket: a message between accept() and the server's option, one after it.
    Connection c = connection(type, true);
    std::string between = c.error, after = c.error;
    if (c.error.empty() && sendByte(c.client.get()) && setFlag(c.server.get(), SO_PASSCRED) &&
        sendByte(c.client.get())) {
      between = receiveCredentials(c.server.get());
      after = receiveCredentials(c.server.get());
    }
    set("between_accept_and_option", between);
    set("after_option", after);
  }
  { // accepted-socket-after-read: the server reads before its option.
    Connection c = connection(type, true);
    std::string read = c.error;
    if (c.error.empty() && sendByte(c.client.get()))
      read = receiveCredentials(c.server.get());
    set("read_before_option", read);
  }
  { // listener-after-listen, handed-over-listener: a connection pending when the listener gets it.
    Connection c = connection(type, false);
    std::string pending = c.error;
    if (c.error.empty() && setFlag(c.listener.get(), SO_PASSCRED)) {
      c.accept();
      // Written after accept(): with the flag inherited (3.12-6.15) it would carry credentials.
      if (!c.server)
        pending = "error: accept " + errnoName(errno);
      else if (sendByte(c.client.get()))
        pending = receiveCredentials(c.server.get());
    }
    set("pending_at_listener_option", pending);
  }
  { // client-after-send: the server answers the request at once, the client enables it after.
    Connection c = connection(type, true);
    std::string answer = c.error;
    if (c.error.empty() && sendByte(c.client.get()) &&
        receiveCredentials(c.server.get()).rfind("error", 0) != 0 && sendByte(c.server.get()) &&
        setFlag(c.client.get(), SO_PASSCRED))
      answer = receiveCredentials(c.client.get());
    set("answer_before_client_option", answer);
  }
  { // ... and enabled after connect(), before the request: correct.
    Connection c = connection(type, true);
    std::string answer = c.error;
    if (c.error.empty() && setFlag(c.client.get(), SO_PASSCRED) && sendByte(c.client.get()) &&
        receiveCredentials(c.server.get()).rfind("error", 0) != 0 && sendByte(c.server.get()))
      answer = receiveCredentials(c.client.get());
    set("answer_after_client_option", answer);
  }
  { // withheld: the sender has SO_PASSCRED, the receiver enables it late (truth table column L
    // for the sender's flag; explicit SCM_CREDENTIALS is creds.table.*.sendmsg_creds.late).
    Connection c = connection(type, true);
    std::string got = c.error;
    if (c.error.empty() && setFlag(c.client.get(), SO_PASSCRED) && sendByte(c.client.get()) &&
        setFlag(c.server.get(), SO_PASSCRED))
      got = receiveCredentials(c.server.get());
    set("sender_option_then_late", got);
  }
}

} // namespace

std::string credentialsDelivered(int socketType, SendMethod method, PasscredTiming timing) {
  Pair pair = unixPair(socketType);
  if (!pair.a)
    return "error: socketpair " + errnoName(errno);
  int sender = pair.a.get(), receiver = pair.b.get();
  if (timing == PasscredTiming::Receiver || timing == PasscredTiming::Both)
    setFlag(receiver, SO_PASSCRED);
  if (timing == PasscredTiming::Sender || timing == PasscredTiming::Both)
    setFlag(sender, SO_PASSCRED);
  if (!sendOne(sender, method))
    return "error: send " + errnoName(errno);
  if (timing == PasscredTiming::Late)
    setFlag(receiver, SO_PASSCRED);
  return receiveCredentials(receiver);
}

std::string credentialsDeliveredToEmbryo(int socketType, SendMethod method) {
  sockaddr_un addr{};
  socklen_t len = 0;
  Fd listener = autoboundListener(socketType, addr, len);
  if (!listener)
    return "error: listener " + errnoName(errno);
  Fd client = connectTo(socketType, addr, len);
  if (!client)
    return "error: connect " + errnoName(errno);
  if (!sendOne(client.get(), method))
    return "error: send " + errnoName(errno);
  Fd accepted(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!accepted)
    return "error: accept " + errnoName(errno);
  setFlag(accepted.get(), SO_PASSCRED);
  return receiveCredentials(accepted.get());
}

Observation credentialsExperiment() {
  Observation o;
  o.experiment = "creds";
  int mismatches = 0;
  for (int type : kSocketTypes)
    for (SendMethod method : kMethods)
      for (PasscredTiming timing : kTimings) {
        std::string got = credentialsDelivered(type, method, timing);
        if (got.rfind("error", 0) == 0)
          ++mismatches;
        o.set(std::string("creds.table.") + typeName(type) + "." + methodName(method) + "." +
                  timingName(timing),
              Value::of(got));
      }
  for (int type : {SOCK_STREAM, SOCK_SEQPACKET})
    for (SendMethod method : kMethods)
      o.set(std::string("creds.embryo_late.") + typeName(type) + "." + methodName(method),
            Value::of(credentialsDeliveredToEmbryo(type, method)));
  if (mismatches)
    o.note(std::to_string(mismatches) + " table cells could not be measured (see 'error' cells)");
  for (int type : {SOCK_STREAM, SOCK_SEQPACKET})
    connectionWindows(o, type);

  // The summary comes from the plainest case: write() on a stream socketpair, SO_PASSCRED
  // enabled on the reader only after the byte was queued. Other types must agree.
  std::string late = o.get("creds.table.stream.write.late")->text;
  bool consistent = true;
  for (int type : kSocketTypes)
    for (SendMethod method : {SendMethod::Write, SendMethod::Sendmsg})
      consistent = consistent && o.get(std::string("creds.table.") + typeName(type) + "." +
                                       methodName(method) + ".late")
                                         ->text == late;
  std::string latePasscred = late == "pid0" ? "pid0" : late == "creds" ? "real"
                             : late == "none"                             ? "none"
                                                                          : late;
  o.set("creds.late_passcred", Value::of(latePasscred));
  if (late == "creds" || late == "pid0")
    o.set("creds.default_attach", Value::of(late == "creds"));
  else
    o.set("creds.default_attach", Value::null());
  o.set("creds.explicit_creds_need_receiver_passcred",
        Value::of(o.get("creds.table.stream.sendmsg_creds.sender")->text == "none" &&
                  o.get("creds.table.stream.sendmsg_creds.neither")->text == "none"));
  o.set("creds.delivery_needs_receiver_passcred",
        Value::of(o.get("creds.table.stream.write.sender")->text == "none"));
  const std::string embryo = o.get("creds.embryo_late.stream.write")->text;
  o.set("creds.embryo_attach", embryo == "creds"   ? Value::of(true)
                               : embryo == "pid0" ? Value::of(false)
                                                  : Value::null());
  o.note("socketpair(stream), write(), SO_PASSCRED set on the reader after the write: reader got '" +
         late + "'" + (consistent ? " (same for dgram and seqpacket, write and sendmsg)"
                                  : " (NOT the same for every type/method: see creds.table)"));
  o.note("explicit SCM_CREDENTIALS to a reader without SO_PASSCRED: '" +
         o.get("creds.table.stream.sendmsg_creds.sender")->text +
         "'; with SO_PASSCRED set late: '" +
         o.get("creds.table.stream.sendmsg_creds.late")->text + "'");
  o.note("write() to a not-yet-accepted stream socket, SO_PASSCRED set after accept(): '" +
         embryo + "'");
  auto window = [&](const char *key) { return o.get(std::string("creds.window.stream.") + key)->text; };
  o.note("stream connection: written between accept() and the reader's SO_PASSCRED '" +
         window("between_accept_and_option") + "', after it '" + window("after_option") +
         "', read before it '" + window("read_before_option") + "', pending when the listener got it '" +
         window("pending_at_listener_option") + "'");
  o.note("an answer queued before the requesting client's SO_PASSCRED '" +
         window("answer_before_client_option") + "', after it '" + window("answer_after_client_option") +
         "'; a sender with SO_PASSCRED, reader enabling it late '" + window("sender_option_then_late") + "'");

  o.verdict = "late SO_PASSCRED on the reader: '" + late + "'; explicit SCM_CREDENTIALS to a reader "
              "without SO_PASSCRED: '" + o.get("creds.table.stream.sendmsg_creds.neither")->text +
              "'; written to a not-yet-accepted socket, SO_PASSCRED after accept(): '" + embryo + "'";
  o.implies("Credentials reach a reader only if it has SO_PASSCRED when it reads: a check guarded "
            "by 'if an SCM_CREDENTIALS cmsg is present' on a socket without SO_PASSCRED never runs.",
            {"afunix-creds-without-passcred"});
  if (latePasscred == "pid0")
    o.implies("The kernel attaches no credentials by default: a reader that enables SO_PASSCRED "
              "after a peer wrote gets pid=0 uid=65534 gid=65534 for those messages. Enable it "
              "before listen(), before bind() for datagrams, before handing out a socketpair.",
              {"afunix-passcred-too-late"});
  else if (latePasscred == "real")
    o.implies("This kernel attaches credentials to every message (the pre-3.2 behaviour): a late "
              "SO_PASSCRED is harmless here but yields pid=0 on 3.2+ kernels.",
              {"afunix-passcred-too-late"});
  if (embryo == "creds")
    o.implies("Messages written before accept() carry real credentials (6.16+ behaviour, "
              "43fb2b30eea7), so setting SO_PASSCRED right after accept() works for them; "
              "messages written after accept() still need SO_PASSCRED in time.");
  else if (embryo == "pid0")
    o.implies("Messages written before accept() arrive with pid=0 when SO_PASSCRED is only set "
              "after accept(): set it on the listener before listen().",
              {"afunix-passcred-too-late"});
  return o;
}

Observation listenerInheritExperiment() {
  Observation o;
  o.experiment = "listener_inherit";
  auto acceptedFlag = [&](bool beforeConnect) -> int {
    sockaddr_un addr{};
    socklen_t len = 0;
    Fd listener = autoboundListener(SOCK_STREAM, addr, len);
    if (!listener)
      return -2;
    if (beforeConnect)
      setFlag(listener.get(), SO_PASSCRED);
    Fd client = connectTo(SOCK_STREAM, addr, len);
    if (!client)
      return -2;
    if (!beforeConnect)
      setFlag(listener.get(), SO_PASSCRED);
    Fd accepted(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!accepted)
      return -2;
    return getFlag(accepted.get(), SO_PASSCRED);
  };
  int before = acceptedFlag(true);
  int between = acceptedFlag(false);
  if (before < 0 || between < 0) {
    o.fail("could not set up a listener, client and accepted socket: " + errnoName(errno));
    o.set("creds.listener_inherit", Value::null());
    return o;
  }
  o.note("SO_PASSCRED on the listener before connect(): accepted socket has SO_PASSCRED=" +
         std::to_string(before));
  o.note("SO_PASSCRED on the listener after connect(), before accept(): accepted socket has "
         "SO_PASSCRED=" + std::to_string(between));
  std::string inherit = !before ? "none" : between ? "accept" : "connect";
  o.set("creds.listener_inherit", Value::of(inherit));
  o.verdict = "accepted sockets take the listener's SO_PASSCRED at " +
              std::string(inherit == "none" ? "neither connect() nor accept()" : inherit + "()");
  if (inherit == "connect")
    o.implies("Accepted sockets take the listener's flags at connect() (6.16+): SO_PASSCRED set "
              "on a listener after listen() misses every client that already connected.",
              {"afunix-passcred-too-late"});
  else if (inherit == "accept")
    o.implies("Accepted sockets take the listener's flags at accept() (3.12-6.15): SO_PASSCRED "
              "set on the listener late still reaches queued connections; not so on 6.16+.",
              {"afunix-passcred-too-late"});
  else
    o.implies("Accepted sockets do not inherit SO_PASSCRED (before 3.12): set it on every "
              "accepted socket, before the client can write.",
              {"afunix-passcred-too-late"});
  return o;
}

Observation featuresExperiment() {
  Observation o;
  o.experiment = "features";
  // SO_PASSPIDFD: the option is accepted and a received message carries an SCM_PIDFD cmsg whose
  // pidfd names the sender.
  {
    Pair p = unixPair(SOCK_STREAM);
    bool present = false;
    if (!setFlag(p.b.get(), kSoPassPidfd)) {
      o.note("setsockopt(SO_PASSPIDFD=" + std::to_string(kSoPassPidfd) + "): " + errnoName(errno));
    } else {
      char byte = 'p';
      (void)!write(p.a.get(), &byte, 1);
      iovec iov{&byte, 1};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int)) * 4];
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      if (recvmsg(p.b.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) == 1) {
        for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
          if (c->cmsg_level != SOL_SOCKET)
            continue;
          int fd;
          std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
          if (c->cmsg_type == kScmPidfd) {
            std::string pid = pidOfPidfd(fd);
            present = pid == std::to_string(getpid());
            o.note("SO_PASSPIDFD: SCM_PIDFD cmsg received, pidfd's Pid: " + pid +
                   " (sender pid " + std::to_string(getpid()) + ")");
          }
          if (c->cmsg_type == kScmPidfd || c->cmsg_type == SCM_RIGHTS)
            close(fd);
        }
      }
      if (!present)
        o.note("SO_PASSPIDFD accepted but no SCM_PIDFD naming the sender arrived");
    }
    o.set("features.so_passpidfd", Value::of(present));
  }
  // SO_PEERPIDFD: getsockopt returns a pidfd of the peer (this process).
  {
    Pair p = unixPair(SOCK_STREAM);
    int pidfd = -1;
    socklen_t len = sizeof pidfd;
    bool present = false;
    if (getsockopt(p.a.get(), SOL_SOCKET, kSoPeerPidfd, &pidfd, &len) == 0 && pidfd >= 0) {
      std::string pid = pidOfPidfd(pidfd);
      present = pid == std::to_string(getpid());
      o.note("SO_PEERPIDFD: getsockopt returned a pidfd with Pid: " + pid);
      close(pidfd);
    } else {
      o.note("getsockopt(SO_PEERPIDFD=" + std::to_string(kSoPeerPidfd) + "): " + errnoName(errno));
    }
    o.set("features.so_peerpidfd", Value::of(present));
  }
  // SO_PASSRIGHTS=0 on the receiver makes an SCM_RIGHTS sendmsg() to it fail with EPERM.
  {
    Pair p = unixPair(SOCK_DGRAM);
    bool present = false;
    if (!setFlag(p.b.get(), kSoPassRights, 0)) {
      o.note("setsockopt(SO_PASSRIGHTS=" + std::to_string(kSoPassRights) + ", 0): " + errnoName(errno));
    } else {
      Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC)); // not a socket: no cycle if sent
      int fd = devnull.get();
      ssize_t n = sendWithFds(p.a.get(), &fd, 1, MSG_DONTWAIT);
      int err = errno;
      present = n < 0 && err == EPERM;
      o.note(std::string("SO_PASSRIGHTS=0 on the receiver, then sendmsg(SCM_RIGHTS): ") +
             (n < 0 ? errnoName(err) : "sent"));
      if (n > 0) {
        char byte;
        recvAndCloseFds(p.b.get(), &byte, 1, MSG_DONTWAIT);
      }
    }
    o.set("features.so_passrights", Value::of(present));
  }
  bool pidfds = o.get("features.so_passpidfd")->boolean && o.get("features.so_peerpidfd")->boolean;
  o.verdict = std::string("SO_PASSPIDFD ") + (o.get("features.so_passpidfd")->boolean ? "works" : "absent") +
              ", SO_PEERPIDFD " + (o.get("features.so_peerpidfd")->boolean ? "works" : "absent") +
              ", SO_PASSRIGHTS " + (o.get("features.so_passrights")->boolean ? "refuses fds (EPERM)" : "absent");
  if (pidfds)
    o.implies("Race-free peer identity is available: SO_PEERPIDFD at connect time, or "
              "SO_PASSPIDFD + SCM_PIDFD per message, instead of pids that can be reused.",
              {"afunix-creds-without-passcred"});
  else
    o.implies("No pidfd-based peer identity here (before 6.5): use SO_PEERCRED, or "
              "SO_PASSCRED + SCM_CREDENTIALS enabled before the peer can write.");
  if (o.get("features.so_passrights")->boolean)
    o.implies("Receivers can refuse fds with SO_PASSRIGHTS=0; a sender then gets EPERM from "
              "sendmsg() and must treat it as 'peer refuses fds', not retry.");
  return o;
}

// accept() on every kind of fd an event loop's table may hand an acceptor: only a listening
// stream or seqpacket socket gives a connection. The checker leaves the others out of where an
// accepted socket may come from (Program::listenersOf).
Observation acceptNeedsListenerExperiment() {
  Observation o;
  o.experiment = "accept_needs_listener";
  auto answer = [](int fd) {
    Fd got(accept4(fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    return got ? std::string("a connection") : errnoName(errno);
  };
  sockaddr_un addr{};
  socklen_t len = 0;
  Fd listener = autoboundListener(SOCK_STREAM, addr, len);
  Fd client = listener ? connectTo(SOCK_STREAM, addr, len) : Fd();
  Fd accepted = client ? Fd(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC)) : Fd();
  Pair pair = unixPair(SOCK_STREAM);
  Fd unlistened(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  Fd dgram(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  int pipeFds[2] = {-1, -1};
  bool piped = pipe2(pipeFds, O_CLOEXEC) == 0;
  Fd pipeRead(pipeFds[0]), pipeWrite(pipeFds[1]);
  if (!accepted || !pair.a || !unlistened || !dgram || !piped) {
    o.fail("could not set up the sockets and the pipe: " + errnoName(errno));
    return o;
  }
  int flags = fcntl(listener.get(), F_GETFL);
  fcntl(listener.get(), F_SETFL, flags | O_NONBLOCK); // nothing is pending: EAGAIN, as a listener
  const std::pair<const char *, int> kinds[] = {
      {"listener", listener.get()},     {"accepted", accepted.get()},
      {"client", client.get()},         {"socketpair", pair.a.get()},
      {"unlistened", unlistened.get()}, {"dgram", dgram.get()},
      {"pipe", pipeRead.get()},
  };
  bool onlyListener = true;
  std::string summary;
  for (const auto &[kind, fd] : kinds) {
    std::string got = answer(fd);
    o.set(std::string("accept.") + kind, Value::of(got));
    o.note(std::string("accept4() on ") + kind + ": " + got);
    summary += std::string(summary.empty() ? "" : ", ") + kind + " " + got;
    bool refused = got != "a connection" && got != "EAGAIN";
    if ((std::string(kind) == "listener") == refused)
      onlyListener = false;
  }
  // A listener never delivers a message either, not even what a pending client already wrote: a
  // read of credentials is never a read on a listener (the checker's creds-without-passcred).
  bool listenerUnread = true;
  for (int type : {SOCK_STREAM, SOCK_SEQPACKET}) {
    const char *key = type == SOCK_STREAM ? "read.listener_stream" : "read.listener_seqpacket";
    const char *kind = type == SOCK_STREAM ? "stream" : "seqpacket";
    sockaddr_un at{};
    socklen_t atLen = 0;
    Fd server = autoboundListener(type, at, atLen);
    Fd pending = server ? connectTo(type, at, atLen) : Fd();
    if (!pending || write(pending.get(), "x", 1) != 1) {
      o.fail(std::string("could not set up a listener with a pending client for ") + key + ": " + errnoName(errno));
      return o;
    }
    char byte;
    iovec iov{&byte, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    ssize_t n = recvmsg(server.get(), &msg, MSG_DONTWAIT);
    int err = errno; // before the strings below allocate
    std::string got = n >= 0 ? "a message" : errnoName(err);
    o.set(key, Value::of(got));
    o.note(std::string("recvmsg() on a ") + kind + " listener whose pending client wrote a byte: " + got);
    summary += std::string("; recvmsg() on a ") + kind + " listener " + got;
    if (n >= 0 || err == EAGAIN)
      listenerUnread = false;
  }
  // listen() on a connected socket: a socketpair() end has no address, an accepted or connected
  // socket is not closed; both are refused, so neither is ever a listener.
  bool connectedNeverListen = true;
  for (const auto &[kind, fd] : {std::pair<const char *, int>{"socketpair", pair.b.get()},
                                 std::pair<const char *, int>{"accepted", accepted.get()}}) {
    int rc = listen(fd, 1);
    std::string got = rc == 0 ? "listening" : errnoName(errno);
    o.set(std::string("listen.") + kind, Value::of(got));
    summary += std::string("; listen() on ") + kind + " " + got;
    connectedNeverListen &= rc != 0;
  }
  o.verdict = "accept4(): " + summary;
  if (connectedNeverListen)
    o.implies("listen() fails on a socketpair() end and on an accepted socket: neither is ever a "
              "listener, whatever listen() call a shared field or table links it to.",
              {"afunix-passcred-too-late"});
  if (onlyListener)
    o.implies("accept() gives a connection only on a listening socket: an accepted or connected "
              "socket, a socketpair() end, a datagram socket or a pipe in the same event-loop table "
              "is never where an accepted socket came from.",
              {"afunix-passcred-too-late", "afunix-creds-without-passcred"});
  else
    o.implies("accept() succeeded on something other than a listener here: an accepted socket may "
              "come from any fd its acceptor is handed.");
  if (listenerUnread)
    o.implies("recvmsg() on a listening socket fails: a listener that an event loop hands a reader "
              "callback is never what the reader gets a message or credentials from.",
              {"afunix-creds-without-passcred"});
  return o;
}

Observation passcredInetExperiment() {
  Observation o;
  o.experiment = "passcred_inet";
  Fd inet(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!inet) {
    o.skip("no AF_INET socket: " + errnoName(errno));
    o.set("passcred.inet", Value::null());
    return o;
  }
  int one = 1;
  std::string answer = setsockopt(inet.get(), SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0
                           ? "ok"
                           : errnoName(errno);
  o.set("passcred.inet", Value::of(answer));
  std::string pidfdAnswer =
      setsockopt(inet.get(), SOL_SOCKET, kSoPassPidfd, &one, sizeof one) == 0 ? "ok"
                                                                              : errnoName(errno);
  o.set("passcred.inet_passpidfd", Value::of(pidfdAnswer));
  o.verdict = "setsockopt(SO_PASSCRED) on an AF_INET socket: " + answer + "; SO_PASSPIDFD: " + pidfdAnswer;
  o.note("setsockopt(AF_INET stream, SO_PASSCRED, 1): " + answer);
  o.note("setsockopt(AF_INET stream, SO_PASSPIDFD, 1): " + pidfdAnswer);
  if (answer == "EOPNOTSUPP")
    o.implies("SO_PASSCRED/SO_PASSSEC/SO_PASSPIDFD on a non-unix socket now fails: code that sets "
              "it on every socket it manages and treats failure as fatal breaks (6.16+).",
              {"afunix-passcred-wrong-family"});
  else
    o.implies("SO_PASSCRED on an inet socket is accepted and ignored here; the same call fails "
              "with EOPNOTSUPP on 6.16+, so don't rely on it succeeding.",
              {"afunix-passcred-wrong-family"});
  return o;
}

// --- one experiment per claim of the credential rules ---------------------------------------

namespace {

std::string sendByte(int fd, SendMethod method) {
  return sendOne(fd, method) ? "" : "error: send " + errnoName(errno);
}

} // namespace

Observation credsWithoutPasscredExperiment() {
  Observation o;
  o.experiment = "creds_without_passcred";
  int cmsgs = 0, reads = 0;
  for (int type : kSocketTypes) {
    const std::string base = std::string("creds.without_passcred.") + typeName(type) + ".";
    std::string plain = credentialsDelivered(type, SendMethod::Write, PasscredTiming::Neither);
    std::string explicitCreds =
        credentialsDelivered(type, SendMethod::SendmsgExplicitCreds, PasscredTiming::Neither);
    std::string senderOnly = credentialsDelivered(type, SendMethod::Write, PasscredTiming::Sender);
    o.set(base + "plain", Value::of(plain));
    o.set(base + "explicit", Value::of(explicitCreds));
    o.set(base + "sender_passcred", Value::of(senderOnly));
    for (const std::string *got : {&plain, &explicitCreds, &senderOnly}) {
      ++reads;
      cmsgs += *got != "none";
    }
    o.note(std::string(typeName(type)) + " socketpair, reader never enables SO_PASSCRED: plain write '" +
           plain + "', explicit SCM_CREDENTIALS '" + explicitCreds + "', SO_PASSCRED on the sender only '" +
           senderOnly + "'");
  }
  o.set("creds.without_passcred.never_delivered", Value::of(cmsgs == 0));
  o.verdict = cmsgs == 0 ? "a reader without SO_PASSCRED got no SCM_CREDENTIALS cmsg in " +
                               std::to_string(reads) + " of " + std::to_string(reads) +
                               " reads (stream, dgram, seqpacket; plain write, explicit "
                               "SCM_CREDENTIALS, SO_PASSCRED on the sender only)"
                         : "credentials reached a reader without SO_PASSCRED in " +
                               std::to_string(cmsgs) + " of " + std::to_string(reads) + " reads";
  o.implies("A check guarded by 'if an SCM_CREDENTIALS cmsg is present' on a socket that never "
            "has SO_PASSCRED never runs, whatever the sender does.",
            {"afunix-creds-without-passcred"});
  return o;
}

Observation passcredHandedOverExperiment() {
  Observation o;
  o.experiment = "passcred_handed_over";
  // The "service manager": a child process makes a bound datagram socket without SO_PASSCRED,
  // hands it over with SCM_RIGHTS and exits; a peer queues a datagram before the receiving
  // program enables SO_PASSCRED.
  Pair handover = unixPair(SOCK_DGRAM);
  if (!handover.a) {
    o.fail("socketpair: " + errnoName(errno));
    return o;
  }
  auto handedOver = [&]() -> Fd {
    pid_t manager = fork();
    if (manager == 0) {
      Fd s(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
      sockaddr_un any{};
      any.sun_family = AF_UNIX;
      if (!s || bind(s.get(), reinterpret_cast<sockaddr *>(&any), sizeof(sa_family_t)) != 0)
        _exit(1);
      int fd = s.get();
      _exit(sendWithFds(handover.b.get(), &fd, 1) == 1 ? 0 : 1);
    }
    if (manager < 0)
      return {};
    int status = 0;
    waitpid(manager, &status, 0);
    char byte;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(handover.a.get(), &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT) != 1)
      return {};
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS)
      return {};
    int fd;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return Fd(fd);
  };
  auto peerTo = [](int socket) -> Fd {
    sockaddr_un addr{};
    socklen_t len = sizeof addr;
    getsockname(socket, reinterpret_cast<sockaddr *>(&addr), &len);
    Fd peer(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!peer || connect(peer.get(), reinterpret_cast<sockaddr *>(&addr), len) != 0)
      return {};
    return peer;
  };
  Fd late = handedOver();
  Fd never = handedOver();
  if (!late || !never) {
    o.fail("the manager process could not hand a socket over");
    return o;
  }
  Fd peer = peerTo(late.get()), peer2 = peerTo(never.get());
  std::string err = peer && peer2 ? sendByte(peer.get(), SendMethod::Write) : "error: connect";
  setFlag(late.get(), SO_PASSCRED);
  if (err.empty())
    err = sendByte(peer.get(), SendMethod::Write);
  if (err.empty())
    err = sendByte(peer2.get(), SendMethod::SendmsgExplicitCreds);
  if (!err.empty()) {
    o.fail(err);
    return o;
  }
  std::string before = receiveCredentials(late.get()), after = receiveCredentials(late.get());
  std::string neverEnabled = receiveCredentials(never.get());
  o.set("passcred.handed_over.queued_before", Value::of(before));
  o.set("passcred.handed_over.sent_after", Value::of(after));
  o.set("passcred.handed_over.never_enabled", Value::of(neverEnabled));
  o.note("bound dgram socket made by a child process without SO_PASSCRED and handed over with "
         "SCM_RIGHTS; a datagram queued before this process enabled SO_PASSCRED: '" + before +
         "', one sent after: '" + after + "'; a second such socket that never gets SO_PASSCRED, "
         "explicit SCM_CREDENTIALS sent to it: '" + neverEnabled + "'");
  o.verdict = "on a socket another process made and handed over, a datagram queued before the "
              "receiving program enabled SO_PASSCRED arrived as '" + before + "', one sent after "
              "as '" + after + "'; never enabled: '" + neverEnabled + "' even for explicit "
              "SCM_CREDENTIALS";
  o.implies("SO_PASSCRED must be set by whoever creates a handed-over socket (PassCredentials=yes): "
            "what peers queued before the program enables it arrives without credentials.",
            {"afunix-passcred-too-late", "afunix-creds-without-passcred"});
  return o;
}

Observation passcredAcceptedLateExperiment() {
  Observation o;
  o.experiment = "passcred_accepted_late";
  std::string summary;
  for (int type : {SOCK_STREAM, SOCK_SEQPACKET}) {
    const std::string base = std::string("passcred.accepted_late.") + typeName(type) + ".";
    // Sent before accept() (to the embryo), between accept() and the setsockopt, and after.
    Connection c;
    std::string err;
    if (!c.open(type))
      err = "error: connect " + errnoName(errno);
    if (err.empty())
      err = sendByte(c.client.get(), SendMethod::Write);
    if (err.empty() && !c.accept())
      err = "error: accept " + errnoName(errno);
    if (err.empty())
      err = sendByte(c.client.get(), SendMethod::Write);
    if (err.empty()) {
      setFlag(c.server.get(), SO_PASSCRED);
      err = sendByte(c.client.get(), SendMethod::Write);
    }
    // The server reads before enabling it: what that read gets, and what is still queued.
    Connection r;
    if (err.empty() && !r.open(type))
      err = "error: connect " + errnoName(errno);
    if (err.empty() && !r.accept())
      err = "error: accept " + errnoName(errno);
    if (err.empty())
      err = sendByte(r.client.get(), SendMethod::Write);
    if (err.empty())
      err = sendByte(r.client.get(), SendMethod::Write);
    if (!err.empty()) {
      o.fail(err);
      return o;
    }
    std::string beforeAccept = receiveCredentials(c.server.get());
    std::string between = receiveCredentials(c.server.get());
    std::string after = receiveCredentials(c.server.get());
    std::string readBefore = receiveCredentials(r.server.get());
    setFlag(r.server.get(), SO_PASSCRED);
    std::string queued = receiveCredentials(r.server.get());
    o.set(base + "before_accept", Value::of(beforeAccept));
    o.set(base + "between", Value::of(between));
    o.set(base + "after", Value::of(after));
    o.set(base + "read_before", Value::of(readBefore));
    o.set(base + "queued_after_read", Value::of(queued));
    o.note(std::string(typeName(type)) + ": sent before accept() '" + beforeAccept +
           "', between accept() and SO_PASSCRED '" + between + "', after '" + after +
           "'; a read before SO_PASSCRED got '" + readBefore +
           "', a message still queued then '" + queued + "'");
    if (type == SOCK_STREAM)
      summary = "sent before accept(): '" + beforeAccept + "'; between accept() and the "
                "setsockopt: '" + between + "'; after it: '" + after + "'; a read before the "
                "setsockopt got '" + readBefore + "' and a message still queued then '" + queued +
                "' (stream and seqpacket alike)";
  }
  bool same = true;
  for (const char *k : {"before_accept", "between", "after", "read_before", "queued_after_read"})
    same = same && o.get(std::string("passcred.accepted_late.stream.") + k)->text ==
                       o.get(std::string("passcred.accepted_late.seqpacket.") + k)->text;
  o.verdict = same ? summary : "stream and seqpacket differ: see evidence";
  o.implies("Enabling SO_PASSCRED on an accepted socket leaves a window from accept() to the "
            "setsockopt: what the client sends in it arrives as pid=0 uid=65534.",
            {"afunix-passcred-too-late"});
  return o;
}

Observation passcredDgramLateExperiment() {
  Observation o;
  o.experiment = "passcred_dgram_late";
  sockaddr_un addr{};
  socklen_t len = sizeof(sa_family_t);
  Fd receiver(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  addr.sun_family = AF_UNIX;
  if (!receiver || bind(receiver.get(), reinterpret_cast<sockaddr *>(&addr), len) != 0) {
    o.fail("bind: " + errnoName(errno));
    return o;
  }
  len = sizeof addr;
  getsockname(receiver.get(), reinterpret_cast<sockaddr *>(&addr), &len);
  Fd sender(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!sender || connect(sender.get(), reinterpret_cast<sockaddr *>(&addr), len) != 0) {
    o.fail("connect: " + errnoName(errno));
    return o;
  }
  std::string err = sendByte(sender.get(), SendMethod::Write);
  setFlag(receiver.get(), SO_PASSCRED);
  if (err.empty())
    err = sendByte(sender.get(), SendMethod::Write);
  if (!err.empty()) {
    o.fail(err);
    return o;
  }
  std::string before = receiveCredentials(receiver.get()), after = receiveCredentials(receiver.get());
  o.set("passcred.dgram_late.before", Value::of(before));
  o.set("passcred.dgram_late.after", Value::of(after));
  o.note("bound dgram socket, a datagram queued before SO_PASSCRED: '" + before + "', one after: '" +
         after + "'");
  o.verdict = "on a bound datagram socket, a datagram queued before SO_PASSCRED was enabled arrived "
              "as '" + before + "', one sent after as '" + after + "'";
  o.implies("A datagram socket must have SO_PASSCRED before bind(): datagrams queued earlier "
            "arrive as pid=0 uid=65534.",
            {"afunix-passcred-too-late"});
  return o;
}

Observation passcredSocketpairLateExperiment() {
  Observation o;
  o.experiment = "passcred_socketpair_late";
  std::string all;
  bool same = true;
  std::string first;
  for (int type : kSocketTypes) {
    std::string got = credentialsDelivered(type, SendMethod::Write, PasscredTiming::Late);
    o.set(std::string("passcred.socketpair_late.") + typeName(type), Value::of(got));
    all += std::string(all.empty() ? "" : ", ") + typeName(type) + " '" + got + "'";
    if (first.empty())
      first = got;
    same = same && got == first;
  }
  o.note("socketpair(), the peer wrote, then SO_PASSCRED on the reader: " + all);
  o.verdict = same ? "a message a socketpair() end's peer wrote before the reader enabled "
                     "SO_PASSCRED arrived as '" + first + "' (stream, dgram, seqpacket)"
                   : "types differ: " + all;
  o.implies("Both ends of a socketpair() need SO_PASSCRED before either is handed out.",
            {"afunix-passcred-too-late"});
  return o;
}

Observation passcredClientLateExperiment() {
  Observation o;
  o.experiment = "passcred_client_late";
  // A server that answers at once: the reply is queued before the client's late setsockopt.
  auto exchange = [&](bool enableBeforeRequest, std::string &got) -> std::string {
    Connection c;
    if (!c.open(SOCK_STREAM) || !c.accept())
      return "error: connect/accept " + errnoName(errno);
    if (enableBeforeRequest)
      setFlag(c.client.get(), SO_PASSCRED);
    std::string err = sendByte(c.client.get(), SendMethod::Write);
    char request;
    if (err.empty() && read(c.server.get(), &request, 1) != 1)
      err = "error: read " + errnoName(errno);
    if (err.empty())
      err = sendByte(c.server.get(), SendMethod::Write);
    if (!err.empty())
      return err;
    if (!enableBeforeRequest)
      setFlag(c.client.get(), SO_PASSCRED);
    got = receiveCredentials(c.client.get());
    return "";
  };
  std::string late, early;
  std::string err = exchange(false, late);
  if (err.empty())
    err = exchange(true, early);
  if (!err.empty()) {
    o.fail(err);
    return o;
  }
  o.set("passcred.client_late.after_request", Value::of(late));
  o.set("passcred.client_late.before_request", Value::of(early));
  o.note("stream client: request sent, server replied at once, then the client enabled "
         "SO_PASSCRED and read the reply: '" + late + "'; SO_PASSCRED enabled after connect(), "
         "before the request: '" + early + "'");
  o.verdict = "a client that enabled SO_PASSCRED after sending its request got the server's "
              "reply as '" + late + "'; enabled before the request: '" + early + "'";
  o.implies("A client checking who answers must enable SO_PASSCRED before its first send.",
            {"afunix-passcred-too-late"});
  return o;
}

Observation passcredListenerAfterListenExperiment() {
  Observation o;
  o.experiment = "passcred_listener_after_listen";
  sockaddr_un addr{};
  socklen_t len = 0;
  Fd listener = autoboundListener(SOCK_STREAM, addr, len);
  Fd early = listener ? connectTo(SOCK_STREAM, addr, len) : Fd();
  if (!early) {
    o.fail("listener/connect: " + errnoName(errno));
    return o;
  }
  setFlag(listener.get(), SO_PASSCRED);
  Fd later = connectTo(SOCK_STREAM, addr, len);
  Fd a(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  Fd b(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  std::string err = later && a && b ? sendByte(early.get(), SendMethod::Write) : "error: accept";
  if (err.empty())
    err = sendByte(later.get(), SendMethod::Write);
  if (!err.empty()) {
    o.fail(err);
    return o;
  }
  std::string before = receiveCredentials(a.get()), after = receiveCredentials(b.get());
  o.set("passcred.listener_after_listen.connected_before", Value::of(before));
  o.set("passcred.listener_after_listen.connected_after", Value::of(after));
  o.set("passcred.listener_after_listen.accepted_flag", Value::of(getFlag(a.get(), SO_PASSCRED)));
  o.note("SO_PASSCRED on the listener after listen(); a client that connected before it, writing "
         "after accept(): '" + before + "' (accepted socket SO_PASSCRED=" +
         std::to_string(getFlag(a.get(), SO_PASSCRED)) + "); one that connected after: '" + after + "'");
  o.verdict = "SO_PASSCRED set on a listener after listen(): a client that connected before it got '" +
              before + "' for what it wrote after accept(), one that connected after got '" + after + "'";
  o.implies("A listener needs SO_PASSCRED before listen(): clients that connect in between miss it "
            "on kernels that copy listener flags at connect() (6.16+).",
            {"afunix-passcred-too-late"});
  return o;
}

Observation passcredListenerAfterAcceptExperiment() {
  Observation o;
  o.experiment = "passcred_listener_after_accept";
  Connection c;
  if (!c.open(SOCK_STREAM) || !c.accept()) {
    o.fail("connect/accept: " + errnoName(errno));
    return o;
  }
  setFlag(c.listener.get(), SO_PASSCRED);
  std::string err = sendByte(c.client.get(), SendMethod::Write);
  if (!err.empty()) {
    o.fail(err);
    return o;
  }
  std::string got = receiveCredentials(c.server.get());
  o.set("passcred.listener_after_accept.accepted_before", Value::of(got));
  o.set("passcred.listener_after_accept.accepted_flag", Value::of(getFlag(c.server.get(), SO_PASSCRED)));
  o.note("SO_PASSCRED on the listener after it accepted a connection; that connection's client "
         "wrote: '" + got + "' (accepted socket SO_PASSCRED=" +
         std::to_string(getFlag(c.server.get(), SO_PASSCRED)) + ")");
  o.verdict = "a connection accepted before SO_PASSCRED was set on its listener never got it: what "
              "its client wrote arrived as '" + got + "'";
  o.implies("SO_PASSCRED on a listener reaches only connections made after it.",
            {"afunix-passcred-too-late"});
  return o;
}

} // namespace afunix::kernel
