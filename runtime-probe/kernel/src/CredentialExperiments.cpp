// Section A of kernel-behaviour.md, measured: when the kernel attaches credentials to a message,
// when it delivers them, how listener flags are inherited, and which identity options exist.
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
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

// One connection of `type` on a fresh listener: the client, the accepted socket and the listener.
struct Connection {
  Fd listener, client, accepted;
  std::string error;
};
Connection connection(int type, bool acceptNow) {
  Connection c;
  sockaddr_un addr{};
  socklen_t len = 0;
  c.listener = autoboundListener(type, addr, len);
  if (c.listener)
    c.client = connectTo(type, addr, len);
  if (c.client && acceptNow)
    c.accepted = Fd(accept4(c.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!c.listener || !c.client || (acceptNow && !c.accepted))
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
    if (c.error.empty() && sendByte(c.client.get()) && setFlag(c.accepted.get(), SO_PASSCRED) &&
        sendByte(c.client.get())) {
      between = receiveCredentials(c.accepted.get());
      after = receiveCredentials(c.accepted.get());
    }
    set("between_accept_and_option", between);
    set("after_option", after);
  }
  { // accepted-socket-after-read: the server reads before its option.
    Connection c = connection(type, true);
    std::string read = c.error;
    if (c.error.empty() && sendByte(c.client.get()))
      read = receiveCredentials(c.accepted.get());
    set("read_before_option", read);
  }
  { // listener-after-listen, handed-over-listener: a connection pending when the listener gets it.
    Connection c = connection(type, false);
    std::string pending = c.error;
    if (c.error.empty() && setFlag(c.listener.get(), SO_PASSCRED)) {
      c.accepted = Fd(accept4(c.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      // Written after accept(): with the flag inherited (3.12-6.15) it would carry credentials.
      if (!c.accepted)
        pending = "error: accept " + errnoName(errno);
      else if (sendByte(c.client.get()))
        pending = receiveCredentials(c.accepted.get());
    }
    set("pending_at_listener_option", pending);
  }
  { // client-after-send: the server answers the request at once, the client enables it after.
    Connection c = connection(type, true);
    std::string answer = c.error;
    if (c.error.empty() && sendByte(c.client.get()) &&
        receiveCredentials(c.accepted.get()).rfind("error", 0) != 0 && sendByte(c.accepted.get()) &&
        setFlag(c.client.get(), SO_PASSCRED))
      answer = receiveCredentials(c.client.get());
    set("answer_before_client_option", answer);
  }
  { // ... and enabled after connect(), before the request: correct.
    Connection c = connection(type, true);
    std::string answer = c.error;
    if (c.error.empty() && setFlag(c.client.get(), SO_PASSCRED) && sendByte(c.client.get()) &&
        receiveCredentials(c.accepted.get()).rfind("error", 0) != 0 && sendByte(c.accepted.get()))
      answer = receiveCredentials(c.client.get());
    set("answer_after_client_option", answer);
  }
  { // withheld: the sender has SO_PASSCRED, the receiver enables it late (truth table column L
    // for the sender's flag; explicit SCM_CREDENTIALS is creds.table.*.sendmsg_creds.late).
    Connection c = connection(type, true);
    std::string got = c.error;
    if (c.error.empty() && setFlag(c.client.get(), SO_PASSCRED) && sendByte(c.client.get()) &&
        setFlag(c.accepted.get(), SO_PASSCRED))
      got = receiveCredentials(c.accepted.get());
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

} // namespace afunix::kernel
