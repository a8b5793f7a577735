// Section A: each credentials observation against a reader the test builds itself, with a
// different socket type or a pathname socket, so a bug in the experiment's plumbing shows.
#include <cstring>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "TestSupport.h"
#include "afunix/kernel/Experiments.h"

namespace afunix::kernel {
namespace {

struct Received {
  bool hasCreds = false;
  ucred cred{};
};

Received readWithCredentials(int fd) {
  char byte;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  Received r;
  EXPECT_EQ(recvmsg(fd, &msg, MSG_DONTWAIT), 1);
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      r.hasCreds = true;
      std::memcpy(&r.cred, CMSG_DATA(c), sizeof r.cred);
    }
  return r;
}

// Deliberately late in several scenarios: these tests measure what a late SO_PASSCRED gets.
void enablePasscred(int fd) {
  int one = 1; // NOLINTNEXTLINE(afunix-passcred-too-late)
  ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one), 0);
}

// Fixture: one run of the experiment shared by the tests (it is deterministic and cheap).
class Credentials : public ::testing::Test {
protected:
  static void SetUpTestSuite() { observation_ = new Observation(credentialsExperiment()); }
  static void TearDownTestSuite() { delete observation_; }
  static const Value &value(const std::string &key) {
    const Value *v = observation_->get(key);
    EXPECT_NE(v, nullptr) << key;
    static const Value null;
    return v ? *v : null;
  }
  static Observation *observation_;
};
Observation *Credentials::observation_ = nullptr;

TEST_F(Credentials, LatePasscredAgreesWithAnIndependentDatagramReader) {
  // Independent reader: a dgram socketpair, send() instead of write(), SO_PASSCRED after it.
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
  ASSERT_EQ(send(sv[0], "d", 1, 0), 1);
  enablePasscred(sv[1]);
  Received r = readWithCredentials(sv[1]);
  close(sv[0]);
  close(sv[1]);
  ASSERT_TRUE(r.hasCreds) << "a reader with SO_PASSCRED always gets an SCM_CREDENTIALS cmsg";
  const std::string expected = r.cred.pid == 0 ? "pid0" : "real";
  if (r.cred.pid == 0) {
    EXPECT_EQ(r.cred.uid, 65534u) << "no credentials are reported as the overflow uid";
  }
  EXPECT_EQ(value("creds.late_passcred").text, expected);
  ASSERT_EQ(value("creds.default_attach").kind, Value::Kind::Bool);
  EXPECT_EQ(value("creds.default_attach").boolean, r.cred.pid != 0);
}

TEST_F(Credentials, ReceiverGateHoldsForEveryTypeAndMethod) {
  // First principle older than 3.2: scm_recv() emits credentials only to a SO_PASSCRED reader,
  // and always to one that had it before the send.
  for (const char *type : {"stream", "dgram", "seqpacket"})
    for (const char *method : {"write", "sendmsg", "sendmsg_creds"}) {
      std::string base = std::string("creds.table.") + type + "." + method + ".";
      EXPECT_EQ(value(base + "receiver").text, "creds") << base;
      EXPECT_EQ(value(base + "both").text, "creds") << base;
      EXPECT_EQ(value(base + "sender").text, "none") << base;
      EXPECT_EQ(value(base + "neither").text, "none") << base;
    }
  EXPECT_TRUE(value("creds.explicit_creds_need_receiver_passcred").boolean);
  EXPECT_TRUE(value("creds.delivery_needs_receiver_passcred").boolean);
}

TEST_F(Credentials, ExplicitCredentialsSurviveALateReader) {
  // An explicit SCM_CREDENTIALS attaches at send time whatever the flags: reading it late with
  // SO_PASSCRED must give the values the test sent.
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
  char byte = 'e';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_CREDENTIALS;
  c->cmsg_len = CMSG_LEN(sizeof(ucred));
  ucred mine{getpid(), getuid(), getgid()};
  std::memcpy(CMSG_DATA(c), &mine, sizeof mine);
  ASSERT_EQ(sendmsg(sv[0], &msg, 0), 1);
  enablePasscred(sv[1]);
  Received r = readWithCredentials(sv[1]);
  close(sv[0]);
  close(sv[1]);
  ASSERT_TRUE(r.hasCreds);
  EXPECT_EQ(r.cred.pid, getpid());
  for (const char *type : {"stream", "dgram", "seqpacket"})
    EXPECT_EQ(value(std::string("creds.table.") + type + ".sendmsg_creds.late").text, "creds");
}

TEST_F(Credentials, EmbryoAgreesWithAnIndependentPathnameListener) {
  test::TempDir dir;
  socklen_t len;
  sockaddr_un addr = dir.address("listener", len);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr *>(&addr), len), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  int client = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr *>(&addr), len), 0);
  ASSERT_EQ(write(client, "w", 1), 1); // queued on the embryo
  int accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  enablePasscred(accepted);
  Received r = readWithCredentials(accepted);
  close(accepted);
  close(client);
  close(listener);
  ASSERT_TRUE(r.hasCreds);
  const std::string expected = r.cred.pid == getpid() ? "creds" : r.cred.pid == 0 ? "pid0" : "?";
  EXPECT_EQ(value("creds.embryo_late.stream.write").text, expected);
  EXPECT_EQ(value("creds.embryo_attach").boolean, expected == "creds");
}

// The windows of afunix-passcred-too-late's variants, against a pathname listener and send()
// (the experiment uses autobound names and write()).
TEST_F(Credentials, ConnectionWindowsAgreeWithAnIndependentPathnameListener) {
  test::TempDir dir;
  socklen_t len;
  sockaddr_un addr = dir.address("windows", len);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr *>(&addr), len), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  auto classify = [](const Received &r) -> std::string {
    if (!r.hasCreds)
      return "none";
    return r.cred.pid == getpid() ? "creds" : r.cred.pid == 0 ? "pid0" : "?";
  };
  // A request sent, answered at once, and only then SO_PASSCRED on the client.
  int client = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr *>(&addr), len), 0);
  int accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  ASSERT_EQ(send(client, "q", 1, 0), 1);
  char byte;
  ASSERT_EQ(recv(accepted, &byte, 1, 0), 1);
  ASSERT_EQ(send(accepted, "a", 1, 0), 1);
  enablePasscred(client);
  Received answer = readWithCredentials(client);
  close(accepted);
  close(client);
  // A message between accept() and the server's option, and one after it (from a client without
  // SO_PASSCRED: a sender's own flag attaches credentials).
  client = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr *>(&addr), len), 0);
  accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  ASSERT_EQ(send(client, "b", 1, 0), 1);
  enablePasscred(accepted);
  ASSERT_EQ(send(client, "c", 1, 0), 1);
  Received between = readWithCredentials(accepted);
  Received after = readWithCredentials(accepted);
  close(accepted);
  close(client);
  // A connection pending when the listener gets SO_PASSCRED.
  client = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr *>(&addr), len), 0);
  enablePasscred(listener);
  accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  ASSERT_EQ(send(client, "p", 1, 0), 1);
  Received pending = readWithCredentials(accepted);
  close(accepted);
  close(client);
  close(listener);

  EXPECT_EQ(value("creds.window.stream.answer_before_client_option").text, classify(answer));
  EXPECT_EQ(value("creds.window.stream.between_accept_and_option").text, classify(between));
  EXPECT_EQ(value("creds.window.stream.after_option").text, classify(after));
  EXPECT_EQ(value("creds.window.stream.pending_at_listener_option").text, classify(pending));
  // What holds on every kernel since 3.2: a reader without the flag gets nothing, one that set
  // it before the message was queued gets real credentials, and so does a reader of a message
  // whose sender had the flag.
  for (const char *type : {"stream", "seqpacket"}) {
    std::string base = std::string("creds.window.") + type + ".";
    EXPECT_EQ(value(base + "read_before_option").text, "none") << base;
    EXPECT_EQ(value(base + "after_option").text, "creds") << base;
    EXPECT_EQ(value(base + "answer_after_client_option").text, "creds") << base;
    EXPECT_EQ(value(base + "sender_option_then_late").text, "creds") << base;
    // Like every message queued before a late SO_PASSCRED (creds.late_passcred).
    EXPECT_EQ(value(base + "between_accept_and_option").text, value("creds.table.stream.write.late").text) << base;
    EXPECT_EQ(value(base + "answer_before_client_option").text, value("creds.table.stream.write.late").text) << base;
  }
}

TEST(ListenerInherit, AgreesWithAnIndependentPathnameListener) {
  test::TempDir dir;
  socklen_t len;
  sockaddr_un addr = dir.address("inherit", len);
  int listener = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr *>(&addr), len), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  int client = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr *>(&addr), len), 0);
  enablePasscred(listener); // after connect(), before accept()
  int accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  int flag = -1;
  socklen_t flagLen = sizeof flag;
  ASSERT_EQ(getsockopt(accepted, SOL_SOCKET, SO_PASSCRED, &flag, &flagLen), 0);
  close(accepted);
  close(client);
  close(listener);
  Observation o = listenerInheritExperiment();
  ASSERT_EQ(o.status, Status::Ok) << o.reason;
  const std::string got = o.get("creds.listener_inherit")->text;
  if (flag)
    EXPECT_EQ(got, "accept");
  else
    EXPECT_TRUE(got == "connect" || got == "none") << got;
}

TEST(Features, AgreeWithIndependentProbes) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
  // SO_PEERPIDFD: a pidfd of ourselves.
  int pidfd = -1;
  socklen_t len = sizeof pidfd;
  bool peerPidfd = getsockopt(sv[0], SOL_SOCKET, kSoPeerPidfd, &pidfd, &len) == 0 && pidfd >= 0;
  if (pidfd >= 0)
    close(pidfd);
  // SO_PASSPIDFD: an SCM_PIDFD cmsg on a datagram.
  int one = 1;
  bool passPidfd = false;
  if (setsockopt(sv[1], SOL_SOCKET, kSoPassPidfd, &one, sizeof one) == 0) {
    ASSERT_EQ(send(sv[0], "p", 1, 0), 1);
    char byte;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int)) * 2];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ASSERT_EQ(recvmsg(sv[1], &msg, 0), 1);
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == kScmPidfd) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
        passPidfd = fd >= 0;
        close(fd);
      }
  }
  close(sv[0]);
  close(sv[1]);
  // SO_PASSRIGHTS=0: sending fds to it fails with EPERM.
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  int zero = 0;
  bool passRights = false;
  if (setsockopt(sv[1], SOL_SOCKET, kSoPassRights, &zero, sizeof zero) == 0) {
    char byte = 'r';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    int payload = STDIN_FILENO;
    std::memcpy(CMSG_DATA(c), &payload, sizeof payload);
    passRights = sendmsg(sv[0], &msg, MSG_DONTWAIT) < 0 && errno == EPERM;
  }
  close(sv[0]);
  close(sv[1]);
  Observation o = featuresExperiment();
  EXPECT_EQ(o.get("features.so_peerpidfd")->boolean, peerPidfd);
  EXPECT_EQ(o.get("features.so_passpidfd")->boolean, passPidfd);
  EXPECT_EQ(o.get("features.so_passrights")->boolean, passRights);
}

TEST(PasscredInet, AgreesWithAnIndependentUdpSocket) {
  int udp = socket(AF_INET, SOCK_DGRAM, 0);
  if (udp < 0)
    GTEST_SKIP() << "no AF_INET here";
  int one = 1; // NOLINTNEXTLINE(afunix-passcred-wrong-family): what does the kernel answer?
  std::string expected = setsockopt(udp, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0
                             ? "ok"
                             : errnoName(errno);
  close(udp);
  Observation o = passcredInetExperiment();
  EXPECT_EQ(o.get("passcred.inet")->text, expected);
  EXPECT_EQ(o.rules, std::vector<std::string>{"afunix-passcred-wrong-family"});
}

// What the checker's listenersOf() relies on: of the fds an event loop may hand an acceptor, only
// the listener gives a connection (here EAGAIN: nothing is pending); every other accept4() fails.
TEST(AcceptNeedsListener, OnlyAListeningSocketGivesConnections) {
  Observation o = acceptNeedsListenerExperiment();
  ASSERT_EQ(o.status, Status::Ok) << o.reason;
  EXPECT_EQ(o.get("accept.listener")->text, "EAGAIN");
  for (const char *kind : {"accepted", "client", "socketpair", "unlistened", "dgram", "pipe"}) {
    const std::string &got = o.get(std::string("accept.") + kind)->text;
    EXPECT_NE(got, "a connection") << kind;
    EXPECT_NE(got, "EAGAIN") << kind << " would wait for a connection like a listener";
  }
  EXPECT_EQ(o.get("accept.pipe")->text, "ENOTSOCK");
  EXPECT_EQ(o.get("accept.dgram")->text, "EOPNOTSUPP");
  EXPECT_EQ(o.rules, (std::vector<std::string>{"afunix-passcred-too-late", "afunix-creds-without-passcred"}));
}

// What creds-without-passcred relies on when an event loop hands a reader every fd of its table:
// a listener gives no message, even with a client's byte pending (6.18: EINVAL for stream,
// ENOTCONN for seqpacket).
TEST(AcceptNeedsListener, AListenerIsNeverRead) {
  Observation o = acceptNeedsListenerExperiment();
  ASSERT_EQ(o.status, Status::Ok) << o.reason;
  for (const char *key : {"read.listener_stream", "read.listener_seqpacket"}) {
    EXPECT_NE(o.get(key)->text, "a message") << key;
    EXPECT_NE(o.get(key)->text, "EAGAIN") << key << " would wait for a message";
  }
  EXPECT_EQ(o.get("read.listener_stream")->text, "EINVAL");
  EXPECT_EQ(o.get("read.listener_seqpacket")->text, "ENOTCONN");
}

// What afunix-passcred-too-late relies on when a shared field or table links a socketpair() end
// to a listen() call: listen() on a connected socket fails (6.18: EINVAL, a socketpair() end has
// no address and an accepted socket is not closed), so that end is never a listener.
TEST(AcceptNeedsListener, AConnectedSocketNeverListens) {
  Observation o = acceptNeedsListenerExperiment();
  ASSERT_EQ(o.status, Status::Ok) << o.reason;
  EXPECT_EQ(o.get("listen.socketpair")->text, "EINVAL");
  EXPECT_EQ(o.get("listen.accepted")->text, "EINVAL");
}

} // namespace
} // namespace afunix::kernel
