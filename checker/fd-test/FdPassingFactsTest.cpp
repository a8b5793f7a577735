// The fd-passing facts on small programs: source in, sends/origins/loops out. One test per
// construct.
#include "FdPassingFacts.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace clang::tidy::afunix::fd;

namespace {

const char *const kPrelude = R"(
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
static int send_fd(int over, int fd) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}
)";

struct Parsed {
  std::unique_ptr<clang::ASTUnit> ast;
  std::unique_ptr<FdFacts> facts;
  llvm::StringSet<> producers;

  // Sends judged in function `caller` (the outermost level).
  std::vector<const SendSite *> sendsIn(const std::string &caller) const {
    std::vector<const SendSite *> out;
    for (const SendSite &site : facts->sends())
      if (site.levels.back().function && site.levels.back().function->getName() == caller)
        out.push_back(&site);
    return out;
  }
  // The kinds of the origins of the single fd sent from `caller`.
  std::vector<FdKind> kindsSentFrom(const std::string &caller) const {
    std::vector<FdKind> kinds;
    auto sends = sendsIn(caller);
    EXPECT_EQ(sends.size(), 1u) << caller;
    if (sends.size() != 1 || sends[0]->payload.empty())
      return kinds;
    const PayloadFd &payload = sends[0]->payload[0];
    OriginSet set = payload.many ? facts->resolveElements(payload.fd, producers)
                                 : facts->resolve(payload.fd, producers);
    for (const FdOrigin &o : set.origins)
      kinds.push_back(o.kind);
    return kinds;
  }
};

Parsed parse(const std::string &code, bool cxx = false) {
  Parsed p;
  std::vector<std::string> args = {cxx ? "-std=c++17" : "-std=gnu11",
                                   "-resource-dir=" AFUNIX_CLANG_RESOURCE_DIR, "-Wno-unused"};
  std::string prelude = kPrelude;
  p.ast = clang::tooling::buildASTFromCodeWithArgs(prelude + code, args, cxx ? "in.cc" : "in.c");
  EXPECT_TRUE(p.ast);
  EXPECT_FALSE(p.ast->getDiagnostics().hasErrorOccurred()) << code;
  p.facts = std::make_unique<FdFacts>(p.ast->getASTContext());
  return p;
}

using Kinds = std::vector<FdKind>;

TEST(FdSends, WrapperWithoutCallerIsJudgedWhereItSends) {
  Parsed p = parse("");
  ASSERT_EQ(p.facts->sends().size(), 1u);
  const SendSite &site = p.facts->sends()[0];
  EXPECT_EQ(site.levels.size(), 1u);
  ASSERT_EQ(site.payload.size(), 1u);
  EXPECT_FALSE(site.payload[0].many);
  EXPECT_EQ(p.facts->text(site.payload[0].fd), "fd");
  EXPECT_EQ(p.facts->text(site.over), "over");
}

TEST(FdSends, WrapperIsExpandedToEachCallSiteWithTheArgumentsPutIn) {
  Parsed p = parse("void a(int ch) { send_fd(ch, socket(AF_UNIX, SOCK_STREAM, 0)); }\n"
                   "void b(int x, int y) { send_fd(y, x); }\n");
  ASSERT_EQ(p.sendsIn("a").size(), 1u);
  ASSERT_EQ(p.sendsIn("b").size(), 1u);
  const SendSite &b = *p.sendsIn("b")[0];
  EXPECT_EQ(b.levels.size(), 2u);
  EXPECT_EQ(p.facts->text(b.over), "y");
  EXPECT_EQ(p.facts->text(b.payload[0].fd), "x");
  EXPECT_TRUE(p.sendsIn("send_fd").empty());
}

TEST(FdSends, SendmsgInAFunctionThatNeverNamesScmRightsCarriesNoFds) {
  Parsed p = parse("int plain(int s, struct msghdr *m) { return sendmsg(s, m, 0); }\n");
  EXPECT_TRUE(p.sendsIn("plain").empty());
}

TEST(FdSends, StoreThroughACmsgDataPointerIsAPayload) {
  Parsed p = parse(R"(
int direct(int over, int fd) {
  char buf[CMSG_SPACE(sizeof(int))];
  struct msghdr msg = {.msg_control = buf, .msg_controllen = sizeof buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  int *slot = (int *)CMSG_DATA(c);
  *slot = fd;
  return sendmsg(over, &msg, 0);
})");
  auto sends = p.sendsIn("direct");
  ASSERT_EQ(sends.size(), 1u);
  ASSERT_EQ(sends[0]->payload.size(), 1u);
  EXPECT_EQ(p.facts->text(sends[0]->payload[0].fd), "fd");
}

TEST(FdSends, ArrayCopiedWithARuntimeCountIsManyWithoutCount) {
  Parsed p = parse(R"(
int all(int over, const int *fds, int n) {
  char buf[CMSG_SPACE(sizeof(int) * 16)];
  struct msghdr msg = {.msg_control = buf, .msg_controllen = sizeof buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_type = SCM_RIGHTS;
  memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
  return sendmsg(over, &msg, 0);
})");
  auto sends = p.sendsIn("all");
  ASSERT_EQ(sends.size(), 1u);
  ASSERT_EQ(sends[0]->payload.size(), 1u);
  EXPECT_TRUE(sends[0]->payload[0].many);
  EXPECT_FALSE(sends[0]->payload[0].count.has_value());
}

TEST(FdSends, ArrayCopiedWithAConstantSizeKeepsItsCount) {
  Parsed p = parse(R"(
int four(int over, const int fds[4]) {
  char buf[CMSG_SPACE(sizeof(int) * 4)];
  struct msghdr msg = {.msg_control = buf, .msg_controllen = sizeof buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_type = SCM_RIGHTS;
  memcpy(CMSG_DATA(c), fds, 4 * sizeof(int));
  return sendmsg(over, &msg, 0);
})");
  auto sends = p.sendsIn("four");
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_TRUE(sends[0]->payload[0].many);
  EXPECT_EQ(sends[0]->payload[0].count, std::optional<int64_t>(4));
}

TEST(FdOrigins, SocketFamilyDecidesUnixOrOther) {
  Parsed p = parse("void u(int ch) { int s = socket(AF_UNIX, SOCK_DGRAM, 0); send_fd(ch, s); }\n"
                   "void i(int ch) { int s = socket(AF_INET, SOCK_DGRAM, 0); send_fd(ch, s); }\n");
  EXPECT_EQ(p.kindsSentFrom("u"), Kinds{FdKind::UnixSocket});
  EXPECT_EQ(p.kindsSentFrom("i"), Kinds{FdKind::OtherSocket});
}

TEST(FdOrigins, SocketpairEndsAreUnixSocketsWithTheirIndex) {
  Parsed p = parse("void f(int ch) { int sv[2]; socketpair(AF_UNIX, SOCK_STREAM, 0, sv);"
                   " send_fd(ch, sv[1]); }\n");
  auto sends = p.sendsIn("f");
  ASSERT_EQ(sends.size(), 1u);
  OriginSet set = p.facts->resolve(sends[0]->payload[0].fd, p.producers);
  ASSERT_EQ(set.origins.size(), 1u);
  EXPECT_EQ(set.origins[0].kind, FdKind::UnixSocket);
  EXPECT_EQ(set.origins[0].index, 1);
  EXPECT_TRUE(set.origins[0].exact);
}

TEST(FdOrigins, AcceptInheritsTheListenersFamily) {
  Parsed p = parse(
      "void u(int ch) { int l = socket(AF_UNIX, SOCK_STREAM, 0); send_fd(ch, accept(l, 0, 0)); }\n"
      "void i(int ch) { int l = socket(AF_INET6, SOCK_STREAM, 0); send_fd(ch, accept(l, 0, 0)); }\n"
      "void x(int ch, int l) { send_fd(ch, accept(l, 0, 0)); }\n");
  EXPECT_EQ(p.kindsSentFrom("u"), Kinds{FdKind::UnixSocket});
  EXPECT_EQ(p.kindsSentFrom("i"), Kinds{FdKind::OtherSocket});
  EXPECT_EQ(p.kindsSentFrom("x"), Kinds{FdKind::Unknown});
}

TEST(FdOrigins, PipesFilesAndMemfdsAreNotSockets) {
  Parsed p = parse("void pi(int ch) { int p[2]; pipe(p); send_fd(ch, p[0]); }\n"
                   "void op(int ch) { send_fd(ch, open(\"/x\", O_RDONLY)); }\n"
                   "void mf(int ch) { int m = memfd_create(\"m\", 0); send_fd(ch, m); }\n");
  EXPECT_EQ(p.kindsSentFrom("pi"), Kinds{FdKind::NotSocket});
  EXPECT_EQ(p.kindsSentFrom("op"), Kinds{FdKind::NotSocket});
  EXPECT_EQ(p.kindsSentFrom("mf"), Kinds{FdKind::NotSocket});
}

TEST(FdOrigins, StructFieldCarriesWhatAnyFunctionStoresInIt) {
  Parsed p = parse("struct conn { int fd; };\n"
                   "void open_conn(struct conn *c) { c->fd = socket(AF_UNIX, SOCK_STREAM, 0); }\n"
                   "void give(int ch, struct conn *c) { send_fd(ch, c->fd); }\n");
  EXPECT_EQ(p.kindsSentFrom("give"), Kinds{FdKind::UnixSocket});
}

TEST(FdOrigins, ReturnValueOfAHelperAndAConfiguredProducer) {
  Parsed p = parse("static int make(void) { return socket(AF_UNIX, SOCK_STREAM, 0); }\n"
                   "int project_socket(void);\n"
                   "void r(int ch) { int s = make(); send_fd(ch, s); }\n"
                   "void q(int ch) { send_fd(ch, project_socket()); }\n");
  EXPECT_EQ(p.kindsSentFrom("r"), Kinds{FdKind::UnixSocket});
  EXPECT_EQ(p.kindsSentFrom("q"), Kinds{FdKind::Unknown});
  p.producers.insert("project_socket");
  EXPECT_EQ(p.kindsSentFrom("q"), Kinds{FdKind::UnixSocket});
}

TEST(FdOrigins, ParameterOfAFunctionWithoutCallerIsUnknown) {
  Parsed p = parse("void entry(int ch, int fd) { send_fd(ch, fd); }\n");
  EXPECT_EQ(p.kindsSentFrom("entry"), Kinds{FdKind::Unknown});
}

TEST(FdOrigins, SelfAssignmentDoesNotLoop) {
  Parsed p = parse("void d(int ch) { int s = socket(AF_UNIX, SOCK_STREAM, 0); s = dup(s);"
                   " send_fd(ch, s); }\n");
  Kinds kinds = p.kindsSentFrom("d");
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), FdKind::UnixSocket), kinds.end());
}

TEST(FdLoops, LoopAroundTheCallSiteIsFoundAndAcknowledgementsAreMatchedByChannel) {
  Parsed p = parse(R"(
static int wait_ack(int peer) { char a; return recv(peer, &a, 1, 0); }
void acked(int ch) { for (;;) { send_fd(ch, socket(AF_UNIX, SOCK_STREAM, 0)); read(ch, 0, 0); } }
void helper(int ch) { while (1) { send_fd(ch, socket(AF_UNIX, SOCK_STREAM, 0)); wait_ack(ch); } }
void other(int ch, int in) { do { send_fd(ch, socket(AF_UNIX, SOCK_STREAM, 0)); read(in, 0, 0); } while (1); }
)");
  for (const char *fn : {"acked", "helper", "other"}) {
    auto sends = p.sendsIn(fn);
    ASSERT_EQ(sends.size(), 1u) << fn;
    const SendLevel &level = sends[0]->levels.back();
    ASSERT_NE(level.loop, nullptr) << fn;
    bool receives = p.facts->receivesInLoop(level.loop, level.function, level.over);
    EXPECT_EQ(receives, std::string(fn) != "other") << fn;
  }
}

TEST(FdLoops, ConstantTripCountOfAForLoop) {
  Parsed p = parse(R"(
void few(int ch) { for (int i = 0; i < 16; i++) send_fd(ch, socket(AF_UNIX, SOCK_STREAM, 0)); }
void some(int ch) { for (int i = 0; i <= 300; i++) send_fd(ch, socket(AF_UNIX, SOCK_STREAM, 0)); }
void many(int ch, int n) { for (int i = 0; i < n; i++) send_fd(ch, socket(AF_UNIX, SOCK_STREAM, 0)); }
)");
  auto trips = [&](const char *fn) {
    auto sends = p.sendsIn(fn);
    EXPECT_EQ(sends.size(), 1u);
    return p.facts->constantTrips(sends[0]->levels.back().loop->loop);
  };
  EXPECT_EQ(trips("few"), std::optional<int64_t>(16));
  EXPECT_EQ(trips("some"), std::optional<int64_t>(301));
  EXPECT_EQ(trips("many"), std::nullopt);
}

TEST(FdLocations, SameVariableFieldOfSameObjectAndSameConstantElement) {
  Parsed p = parse(R"(
struct two { int a, b; };
void s1(int x) { send_fd(x, x); }
void s2(struct two *t) { send_fd(t->a, t->a); }
void d1(struct two *t, struct two *u) { send_fd(t->a, u->a); }
void s3(int *sv) { send_fd(sv[0], sv[0]); }
void d2(int *sv) { send_fd(sv[0], sv[1]); }
)");
  for (const auto &[fn, same] : std::vector<std::pair<const char *, bool>>{
           {"s1", true}, {"s2", true}, {"d1", false}, {"s3", true}, {"d2", false}}) {
    auto sends = p.sendsIn(fn);
    ASSERT_EQ(sends.size(), 1u) << fn;
    EXPECT_EQ(FdFacts::sameLocation(sends[0]->over, sends[0]->payload[0].fd), same) << fn;
  }
}

} // namespace
