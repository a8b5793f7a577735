// The socket model on small programs: source in, facts out. One test per construct.
#include "SocketModel.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace clang::tidy::afunix;

namespace {

const char *const kPrelude = R"(
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <string.h>
)";

struct Facts {
  std::unique_ptr<clang::ASTUnit> ast;
  std::unique_ptr<SocketModel> model;
  std::string dump;

  bool has(const std::string &line) const { return dump.find(line) != std::string::npos; }
};

Facts extract(const std::string &code, const ModelConfig &config = {}, bool cxx = false) {
  Facts facts;
  std::vector<std::string> args = {cxx ? "-std=c++17" : "-std=gnu11",
                                   "-resource-dir=" AFUNIX_CLANG_RESOURCE_DIR};
  facts.ast = clang::tooling::buildASTFromCodeWithArgs(std::string(kPrelude) + code, args,
                                                       cxx ? "input.cc" : "input.c");
  EXPECT_TRUE(facts.ast);
  EXPECT_FALSE(facts.ast->getDiagnostics().hasErrorOccurred()) << code;
  facts.model = SocketModel::build(facts.ast->getASTContext(), config);
  facts.dump = facts.model->dump();
  return facts;
}

// The index of the single create fact of `how` at location key `key`.
int originAt(const SocketModel &model, const std::string &key) {
  for (unsigned i = 0; i < model.creates().size(); ++i)
    if (model.location(model.creates()[i].loc).key == key)
      return static_cast<int>(i);
  return -1;
}

bool reaches(const SocketModel &model, int origin, const std::string &key) {
  for (LocId id = 0; id < model.locations().size(); ++id)
    if (model.location(id).key == key)
      for (unsigned o : model.originsOf(id))
        if (static_cast<int>(o) == origin)
          return true;
  return false;
}

TEST(SocketModel, SocketCallRecordsFamilyAndMaskedType) {
  Facts f = extract("int f(void) { int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); return fd; }");
  EXPECT_TRUE(f.has("create socket site:socket@")) << f.dump;
  EXPECT_TRUE(f.has("family AF_UNIX type 2")) << f.dump;
  int origin = originAt(*f.model, f.model->creates()[0].site.expr ? f.model->location(f.model->creates()[0].loc).key : "");
  EXPECT_TRUE(reaches(*f.model, origin, "ret:f")) << f.dump;
}

TEST(SocketModel, FamilySpellingsAreRecognised) {
  Facts f = extract("void f(void) { int a = socket(PF_LOCAL, SOCK_STREAM, 0); "
                    "int b = socket(AF_NETLINK, SOCK_RAW, 0); int c = socket(AF_INET6, SOCK_STREAM, 0); "
                    "int d = socket(AF_BLUETOOTH, SOCK_STREAM, 0); (void)a; (void)b; (void)c; (void)d; }");
  EXPECT_TRUE(f.has("family AF_UNIX type 1")) << f.dump;
  EXPECT_TRUE(f.has("family AF_NETLINK type 3")) << f.dump;
  EXPECT_TRUE(f.has("family AF_INET6")) << f.dump;
  EXPECT_TRUE(f.has("family AF_BLUETOOTH")) << f.dump;
  EXPECT_EQ(f.model->creates()[0].familyName, "PF_LOCAL");
}

TEST(SocketModel, SetsockoptValueFromPointedInt) {
  Facts f = extract("void f(int on) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); int one = 1, zero = 0;"
                    " setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);"
                    " setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &zero, sizeof zero);"
                    " setsockopt(fd, SOL_SOCKET, SO_PASSSEC, &on, sizeof on);"
                    " setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){1}, sizeof(int)); }");
  EXPECT_TRUE(f.has("option SO_PASSCRED true local:f:fd")) << f.dump;
  EXPECT_TRUE(f.has("option SO_PASSCRED false local:f:fd")) << f.dump;
  EXPECT_TRUE(f.has("option SO_PASSSEC maybe local:f:fd")) << f.dump;
  EXPECT_EQ(f.model->options().size(), 4u) << f.dump;
}

TEST(SocketModel, GetsockoptAndPeercredAreNotOptions) {
  Facts f = extract("void f(int fd) { struct ucred uc; socklen_t len = sizeof uc; int v; "
                    "getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len);"
                    "getsockopt(fd, SOL_SOCKET, SO_PASSCRED, &v, &len); }");
  EXPECT_TRUE(f.model->options().empty()) << f.dump;
}

TEST(SocketModel, WrapperCallPassingTheConstantIsAnOption) {
  Facts f = extract("int set_int_option(int fd, int level, int opt, int value);"
                    "void f(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0);"
                    " set_int_option(fd, SOL_SOCKET, SO_PASSCRED, 1); }");
  EXPECT_TRUE(f.has("option SO_PASSCRED true local:f:fd")) << f.dump;
  EXPECT_TRUE(f.has("wrapper")) << f.dump;
}

TEST(SocketModel, ConfiguredWrapperWithoutTheConstant) {
  ModelConfig config = ModelConfig::parse("", "socket_set_passcred", "");
  Facts f = extract("int socket_set_passcred(int fd, int on);"
                    "void f(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); socket_set_passcred(fd, 1); }",
                    config);
  EXPECT_TRUE(f.has("option SO_PASSCRED true local:f:fd")) << f.dump;
}

TEST(SocketModel, SocketpairCreatesPeers) {
  Facts f = extract("void f(void) { int sv[2]; socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv); int r = sv[1]; (void)r; }");
  EXPECT_TRUE(f.has("create socketpair local:f:sv@")) << f.dump;
  int second = -1;
  for (unsigned i = 0; i < f.model->creates().size(); ++i)
    if (f.model->creates()[i].how == CreateHow::Socketpair &&
        f.model->location(f.model->creates()[i].loc).index == 1)
      second = static_cast<int>(i);
  ASSERT_GE(second, 0) << f.dump;
  EXPECT_NE(f.model->creates()[second].peer, kNoLoc);
  EXPECT_EQ(f.model->creates()[second].type, 5); // SOCK_SEQPACKET
  bool flowsToR = false;
  for (LocId id = 0; id < f.model->locations().size(); ++id)
    if (f.model->location(id).name == "r")
      for (unsigned o : f.model->originsOf(id))
        flowsToR |= static_cast<int>(o) == second;
  EXPECT_TRUE(flowsToR) << f.dump;
}

TEST(SocketModel, AcceptRecordsListenerAndInheritsFamily) {
  Facts f = extract("void f(void) { int l = socket(AF_UNIX, SOCK_STREAM, 0); listen(l, 4);"
                    " int c = accept(l, 0, 0); (void)c; }");
  EXPECT_TRUE(f.has("create accept site:accept@")) << f.dump;
  EXPECT_TRUE(f.has("listener local:f:l@")) << f.dump;
  EXPECT_TRUE(f.has("listen local:f:l@")) << f.dump;
  const CreateFact *accepted = nullptr;
  for (const CreateFact &c : f.model->creates())
    if (c.how == CreateHow::Accept)
      accepted = &c;
  ASSERT_TRUE(accepted);
  EXPECT_EQ(accepted->family, Family::Unix);
  EXPECT_EQ(accepted->type, 1);
}

TEST(SocketModel, StructFieldIsOneLocationAcrossFunctions) {
  Facts f = extract("struct server { int fd; };"
                    "void init(struct server *s) { s->fd = socket(AF_UNIX, SOCK_DGRAM, 0); }"
                    "void enable(struct server *s) { int on = 1; setsockopt(s->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  EXPECT_TRUE(f.has("option SO_PASSCRED true field:server::fd")) << f.dump;
  EXPECT_TRUE(f.has("flow site:socket@")) << f.dump;
  EXPECT_EQ(f.model->options()[0].site.socketText, "s->fd");
}

TEST(SocketModel, CxxMemberThroughThis) {
  Facts f = extract("class Server { int fd_ = -1; public: void open() { fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0); }"
                    " void creds() { int on = 1; setsockopt(this->fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); } };",
                    {}, true);
  EXPECT_TRUE(f.has("option SO_PASSCRED true field:Server::fd_")) << f.dump;
  EXPECT_TRUE(f.has("-> field:Server::fd_")) << f.dump;
}

TEST(SocketModel, ArgumentFlowsIntoParameterAndReturnFlowsBack) {
  Facts f = extract("static int make(void) { return socket(AF_UNIX, SOCK_STREAM, 0); }"
                    "static void use(int sock) { listen(sock, 1); }"
                    "void f(void) { int fd = make(); use(fd); }");
  EXPECT_TRUE(f.has("flow site:socket@")) << f.dump;
  EXPECT_TRUE(f.has("-> ret:make")) << f.dump;
  EXPECT_TRUE(f.has("flow ret:make -> local:f:fd")) << f.dump;
  EXPECT_TRUE(f.has("-> param:use#0")) << f.dump;
  int origin = -1;
  for (unsigned i = 0; i < f.model->creates().size(); ++i)
    if (f.model->creates()[i].how == CreateHow::Socket)
      origin = static_cast<int>(i);
  EXPECT_TRUE(reaches(*f.model, origin, "param:use#0")) << f.dump;
}

TEST(SocketModel, ParameterOfFunctionWithoutCallerIsItsOwnOrigin) {
  Facts f = extract("void enable(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  EXPECT_TRUE(f.has("create parameter param:enable#0")) << f.dump;
}

TEST(SocketModel, ExternalSockets) {
  Facts f = extract("int sd_listen_fds(int);\n#define SD_LISTEN_FDS_START 3\n"
                    "int android_get_control_socket(const char *);"
                    "void f(void) { if (sd_listen_fds(0) != 1) return; int a = SD_LISTEN_FDS_START + 0;"
                    " int b = 3; int c = android_get_control_socket(\"x\"); listen(a, 1); listen(b, 1); listen(c, 1); }");
  EXPECT_TRUE(f.has("create external const:SD_LISTEN_FDS_START + 0")) << f.dump;
  EXPECT_TRUE(f.has("create external const:fd 3")) << f.dump;
  EXPECT_TRUE(f.has("create external site:android_get_control_socket@")) << f.dump;
}

TEST(SocketModel, ConfiguredProducerAndExternalSource) {
  ModelConfig config = ModelConfig::parse("open_inet:AF_INET;open_unix", "", "get_inherited");
  Facts f = extract("int open_inet(void); int open_unix(void); int get_inherited(void);"
                    "void f(void) { int a = open_inet(), b = open_unix(), c = get_inherited();"
                    " listen(a, 1); listen(b, 1); listen(c, 1); }",
                    config);
  EXPECT_TRUE(f.has("create producer site:open_inet@")) << f.dump;
  EXPECT_TRUE(f.has("family AF_INET\n")) << f.dump;
  EXPECT_TRUE(f.has("family AF_UNIX\n")) << f.dump;
  EXPECT_TRUE(f.has("create external site:get_inherited@")) << f.dump;
}

const char *const kRecvPrefix = "static int recv_creds(int fd) { char data[1]; union { struct cmsghdr h; "
                                "char buf[CMSG_SPACE(sizeof(struct ucred))]; } u; struct iovec iov = { data, 1 };"
                                " struct msghdr m = {0}; m.msg_iov = &iov; m.msg_iovlen = 1; m.msg_control = u.buf;"
                                " m.msg_controllen = sizeof u.buf; if (recvmsg(fd, &m, 0) < 0) return -1;";

TEST(SocketModel, ReadsCredentialsInCmsgLoop) {
  Facts f = extract(std::string(kRecvPrefix) +
                    " for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))"
                    "   if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) return 1;"
                    " return 0; }");
  EXPECT_TRUE(f.has("reads_credentials param:recv_creds#0")) << f.dump;
}

TEST(SocketModel, ReadsCredentialsInSwitch) {
  Facts f = extract(std::string(kRecvPrefix) +
                    " struct cmsghdr *c = CMSG_FIRSTHDR(&m); switch (c->cmsg_type) { case SCM_CREDENTIALS: return 1; default: break; }"
                    " return 0; }");
  EXPECT_TRUE(f.has("reads_credentials")) << f.dump;
}

TEST(SocketModel, ReadsCredentialsAsUcredCast) {
  Facts f = extract(std::string(kRecvPrefix) +
                    " struct ucred *uc = (struct ucred *)CMSG_DATA(CMSG_FIRSTHDR(&m)); return uc->uid; }");
  EXPECT_TRUE(f.has("reads_credentials")) << f.dump;
}

TEST(SocketModel, ReadsCredentialsThroughHelperTakingCmsghdr) {
  Facts f = extract("static int is_creds(const struct cmsghdr *c) { return c->cmsg_type == SCM_CREDENTIALS; }" +
                    std::string(kRecvPrefix) + " return is_creds(CMSG_FIRSTHDR(&m)); }");
  EXPECT_TRUE(f.has("reads_credentials")) << f.dump;
}

TEST(SocketModel, SendingCredentialsIsNotReading) {
  Facts f = extract(std::string(kRecvPrefix) +
                    " struct cmsghdr *c = CMSG_FIRSTHDR(&m); c->cmsg_type = SCM_CREDENTIALS; /* SCM_CREDENTIALS */ return 0; }");
  EXPECT_FALSE(f.has("reads_credentials")) << f.dump;
}

TEST(SocketModel, FamilyGuardMarksOption) {
  Facts f = extract("void f(int fd, int family) { int on = 1; if (family == AF_UNIX)"
                    " setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  EXPECT_TRUE(f.has("guarded")) << f.dump;
}

TEST(SocketModel, CfgOrder) {
  Facts f = extract("void f(const struct sockaddr_un *a, int flag) { int on = 1; int fd = socket(AF_UNIX, SOCK_DGRAM, 0);"
                    " if (flag) setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);"
                    " if (bind(fd, (const struct sockaddr *)a, sizeof *a) < 0) return;"
                    " setsockopt(fd, SOL_SOCKET, SO_PASSSEC, &on, sizeof on); }");
  const SocketModel &m = *f.model;
  ASSERT_EQ(m.options().size(), 2u) << f.dump;
  ASSERT_EQ(m.lifecycle().size(), 1u) << f.dump;
  // Facts come in traversal order, not source order: pick them by option.
  bool firstIsCred = m.options()[0].option == SockOption::PassCred;
  const Site &early = m.options()[firstIsCred ? 0 : 1].site;
  const Site &late = m.options()[firstIsCred ? 1 : 0].site;
  const Site &bind = m.lifecycle()[0].site;
  EXPECT_TRUE(m.mayPrecede(early, bind, false));
  EXPECT_FALSE(m.mustFollow(bind, early, true));
  EXPECT_TRUE(m.mustFollow(bind, late, false));
  EXPECT_FALSE(m.mayPrecede(late, bind, true));
}

TEST(SocketModel, CfgOrderAcrossFunctionsIsTheCallersChoice) {
  Facts f = extract("void a(int fd) { listen(fd, 1); } void b(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  const SocketModel &m = *f.model;
  EXPECT_TRUE(m.mayPrecede(m.options()[0].site, m.lifecycle()[0].site, true));
  EXPECT_FALSE(m.mustFollow(m.lifecycle()[0].site, m.options()[0].site, false));
}

} // namespace

namespace {

TEST(SocketModel, ConditionalOperatorFlowsBothBranches) {
  Facts f = extract("void f(int unix_only) { int a = socket(AF_UNIX, SOCK_STREAM, 0); int b = socket(AF_INET, SOCK_STREAM, 0);"
                    " int fd = unix_only ? a : b; listen(fd, 1); }");
  EXPECT_TRUE(f.has("flow local:f:a")) << f.dump;
  EXPECT_TRUE(f.has("flow local:f:b")) << f.dump;
  unsigned reaching = 0;
  for (const LifecycleFact &l : f.model->lifecycle())
    reaching += f.model->originsOf(l.loc).size();
  EXPECT_EQ(reaching, 2u) << f.dump;
}

TEST(SocketModel, ConstructorInitializerStoresIntoMember) {
  Facts f = extract("struct Rx { int fd_; Rx() : fd_(::socket(AF_UNIX, SOCK_DGRAM, 0)) {} void go() { listen(fd_, 1); } };",
                    {}, true);
  EXPECT_TRUE(f.has("-> field:Rx::fd_")) << f.dump;
  ASSERT_EQ(f.model->lifecycle().size(), 1u);
  ASSERT_EQ(f.model->originsOf(f.model->lifecycle()[0].loc).size(), 1u) << f.dump;
  EXPECT_EQ(f.model->creates()[f.model->originsOf(f.model->lifecycle()[0].loc)[0]].how, CreateHow::Socket);
}

TEST(SocketModel, EscapedFunctionParameterAlsoGetsUnknownSockets) {
  Facts f = extract("static void on_ready(int fd) { listen(fd, 1); }"
                    "void (*callback)(int) = on_ready;"
                    "void f(void) { on_ready(socket(AF_UNIX, SOCK_STREAM, 0)); }");
  ASSERT_EQ(f.model->lifecycle().size(), 1u);
  bool unknown = false, created = false;
  for (unsigned o : f.model->originsOf(f.model->lifecycle()[0].loc)) {
    unknown |= f.model->creates()[o].how == CreateHow::Unknown;
    created |= f.model->creates()[o].how == CreateHow::Socket;
  }
  EXPECT_TRUE(unknown) << f.dump;
  EXPECT_TRUE(created) << f.dump;
}

TEST(SocketModel, UntrackedWriteIsAnUnknownOrigin) {
  Facts f = extract("void f(int *fds, int i) { int fd = -1; fd = fds[i]; listen(fd, 1); }");
  EXPECT_TRUE(f.has("create unknown local:f:fd")) << f.dump;
}

TEST(SocketModel, SmallConstantsAreNotSockets) {
  Facts f = extract("void f(void) { int fd = -1; int z = 0; fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); listen(z, 1); }");
  for (const CreateFact &c : f.model->creates())
    EXPECT_NE(c.how, CreateHow::External) << f.dump;
}

TEST(SocketModel, Accept4AndFieldArrayElements) {
  Facts f = extract("struct pair { int sv[2]; };"
                    "void f(struct pair *p) { socketpair(AF_UNIX, SOCK_STREAM, 0, p->sv); listen(p->sv[0], 1);"
                    " int c = accept4(p->sv[0], 0, 0, SOCK_CLOEXEC); (void)c; }");
  EXPECT_TRUE(f.has("create socketpair field:pair::sv[0]")) << f.dump;
  EXPECT_TRUE(f.has("peer field:pair::sv[1]")) << f.dump;
  EXPECT_TRUE(f.has("listen field:pair::sv[0]")) << f.dump;
  EXPECT_TRUE(f.has("listener field:pair::sv[0]")) << f.dump;
}

TEST(SocketModel, OptionInsideMacroIsSeenAtItsExpansion) {
  Facts f = extract("#define ENABLE_CREDS(s) do { int on_ = 1; setsockopt((s), SOL_SOCKET, SO_PASSCRED, &on_, sizeof on_); } while (0)\n"
                    "void f(void) { int fd = socket(AF_UNIX, SOCK_DGRAM, 0); ENABLE_CREDS(fd); }");
  EXPECT_TRUE(f.has("option SO_PASSCRED true local:f:fd")) << f.dump;
  const SocketModel &m = *f.model;
  EXPECT_TRUE(m.context().getSourceManager().isWrittenInMainFile(m.options()[0].site.loc));
  EXPECT_TRUE(m.options()[0].site.loc.isFileID());
}

TEST(SocketModel, SharedModelIsBuiltOncePerContext) {
  Facts f = extract("void f(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); }");
  SocketModel::resetShared();
  const SocketModel &first = SocketModel::shared(f.ast->getASTContext(), {});
  const SocketModel &again = SocketModel::shared(f.ast->getASTContext(), {});
  EXPECT_EQ(&first, &again);
  ModelConfig other = ModelConfig::parse("make_socket", "", "");
  const SocketModel &reconfigured = SocketModel::shared(f.ast->getASTContext(), other);
  EXPECT_EQ(reconfigured.config().socketProducers.count("make_socket"), 1u);
  SocketModel::resetShared();
}

} // namespace

namespace {

TEST(SocketModel, OutParameterLinksCalleeDerefAndCallerVariable) {
  Facts f = extract("static void open_listener(int *out) { *out = socket(AF_UNIX, SOCK_STREAM, 0); listen(*out, 1); }"
                    "void f(void) { int lfd; open_listener(&lfd); int c = accept(lfd, 0, 0); (void)c; }");
  EXPECT_TRUE(f.has("flow site:socket@")) << f.dump;
  EXPECT_TRUE(f.has("-> param:open_listener#0[0]")) << f.dump;
  EXPECT_TRUE(f.has("flow param:open_listener#0[0] -> local:f:lfd")) << f.dump;
  const CreateFact *accepted = nullptr;
  for (const CreateFact &c : f.model->creates())
    if (c.how == CreateHow::Accept)
      accepted = &c;
  ASSERT_TRUE(accepted);
  ASSERT_EQ(f.model->originsOf(accepted->listener).size(), 1u) << f.dump;
  EXPECT_EQ(f.model->creates()[f.model->originsOf(accepted->listener)[0]].how, CreateHow::Socket);
}

TEST(SocketModel, ArrayPassedToHelperLinksElements) {
  Facts f = extract("static void make_pair(int sv[2]) { socketpair(AF_UNIX, SOCK_STREAM, 0, sv); }"
                    "void f(void) { int fds[2]; make_pair(fds); listen(fds[1], 1); }");
  ASSERT_EQ(f.model->lifecycle().size(), 1u);
  const std::vector<unsigned> &origins = f.model->originsOf(f.model->lifecycle()[0].loc);
  ASSERT_FALSE(origins.empty()) << f.dump;
  bool secondEnd = false;
  for (unsigned o : origins)
    secondEnd |= f.model->creates()[o].how == CreateHow::Socketpair &&
                 f.model->location(f.model->creates()[o].loc).index == 1;
  EXPECT_TRUE(secondEnd) << f.dump;
}

} // namespace
