// The analysis layer on small programs: source in, facts out (Extract), facts through the file
// format (FactsIO), several units linked into one program (Program). One test per construct.
#include "Extract.h"
#include "FactsBinary.h"
#include "FactsIO.h"
#include "Program.h"
#include "Queries.h"
#include "Relevance.h"
#include "ScratchDirectory.h"
#include "ServiceFiles.h"
#include "afunix/KernelConstants.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "llvm/Support/FileSystem.h"

#include <fstream>
#include <map>
#include <set>
#include <gtest/gtest.h>

using namespace afunix;
using namespace afunix::analysis;

namespace {

const char *const kPrelude = R"(
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <string.h>
#include <unistd.h>
)";

struct Source {
  std::string name;
  std::string code;
  bool cxx = false;
};

facts::Unit extractUnit(const Source &source, const ProjectOptions &options) {
  std::vector<std::string> args = {source.cxx ? "-std=c++17" : "-std=gnu11",
                                   "-resource-dir=" AFUNIX_CLANG_RESOURCE_DIR};
  std::unique_ptr<clang::ASTUnit> ast = clang::tooling::buildASTFromCodeWithArgs(
      std::string(kPrelude) + source.code, args, source.name);
  EXPECT_TRUE(ast);
  EXPECT_FALSE(ast->getDiagnostics().hasErrorOccurred()) << source.code;
  return extractFacts(ast->getASTContext(), options);
}

struct Linked {
  std::vector<facts::Unit> units;
  std::unique_ptr<Program> program;
  std::string dump;
  bool has(const std::string &line) const { return dump.find(line) != std::string::npos; }
  const Program &p() const { return *program; }
};

Linked link(const std::vector<Source> &sources, const ProjectOptions &options = {}) {
  Linked l;
  for (const Source &s : sources)
    l.units.push_back(extractUnit(s, options));
  std::vector<const facts::Unit *> units;
  for (const facts::Unit &u : l.units)
    units.push_back(&u);
  l.program = Program::link(units);
  l.dump = l.program->dump();
  return l;
}

Linked one(const std::string &code, const ProjectOptions &options = {}) {
  return link({{"input.c", code, false}}, options);
}
Linked cxx(const std::string &code, const ProjectOptions &options = {}) {
  return link({{"input.cc", code, true}}, options);
}

ProjectOptions options(std::map<std::string, std::string> values) {
  return ProjectOptions::parse(
      [&](llvm::StringRef name) -> std::optional<std::string> {
        auto it = values.find(name.str());
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      [](const std::string &error) { ADD_FAILURE() << error; });
}

// The origins (by how and creator) that reach the place of the first fact of `kind` on a line
// whose dump contains `needle`.
std::vector<std::string> originsAt(const Program &p, Id place) {
  std::vector<std::string> out;
  for (Id o : p.originsOf(place))
    out.push_back(std::string(facts::name(p.creates[o].how)) + ":" + p.creates[o].creator);
  return out;
}

Id firstOption(const Program &p) { return p.options.empty() ? kNone : p.options[0].place; }

} // namespace

// ---------------------------------------------------------------------------------------------
// Creation

TEST(Extract, SocketCallRecordsFamilyAndMaskedType) {
  Linked f = one("int f(void) { int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); return fd; }");
  EXPECT_TRUE(f.has("create socket value:socket() line")) << f.dump;
  EXPECT_TRUE(f.has("family AF_UNIX type 2")) << f.dump;
  Id ret = f.p().placeByKey("r:c:@F@f");
  ASSERT_NE(ret, kNone) << f.dump;
  EXPECT_EQ(originsAt(f.p(), ret), std::vector<std::string>{"socket:socket"});
}

TEST(Extract, FamilySpellingsAreRecognised) {
  Linked f = one("void f(void) { int a = socket(PF_LOCAL, SOCK_STREAM, 0); "
                 "int b = socket(AF_NETLINK, SOCK_RAW, 0); int c = socket(PF_INET6, SOCK_DGRAM, 0);"
                 "int d = socket(AF_BLUETOOTH, SOCK_STREAM, 0); listen(a, 1); listen(b, 1); listen(c, 1); listen(d, 1); }");
  EXPECT_TRUE(f.has("family AF_UNIX type 1")) << f.dump;
  EXPECT_TRUE(f.has("family AF_NETLINK type 3")) << f.dump;
  EXPECT_TRUE(f.has("family AF_INET6")) << f.dump;
  EXPECT_TRUE(f.has("family AF_BLUETOOTH")) << f.dump;
  EXPECT_EQ(f.p().creates[0].familyName, "PF_LOCAL");
}

TEST(Extract, SocketpairCreatesPeersAndElementsFlow) {
  Linked f = one("int f(void) { int sv[2]; socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv); int r = sv[1]; listen(r, 1); return 0; }");
  EXPECT_TRUE(f.has("create socketpair local:f:sv[0]")) << f.dump;
  EXPECT_TRUE(f.has("peer local:f:sv[1]")) << f.dump;
  EXPECT_EQ(f.p().creates[1].type, 5); // SOCK_SEQPACKET
  ASSERT_EQ(f.p().lifecycle.size(), 1u);
  std::vector<Id> origins = f.p().originsOf(f.p().lifecycle[0].place);
  ASSERT_EQ(origins.size(), 1u) << f.dump;
  EXPECT_EQ(f.p().creates[origins[0]].end, 1);
}

TEST(Extract, AcceptRecordsListenerAndInheritsFamily) {
  Linked f = one("void f(void) { int l = socket(AF_UNIX, SOCK_STREAM, 0); listen(l, 4);"
                 "int c = accept4(l, 0, 0, SOCK_CLOEXEC); listen(c, 1); }");
  EXPECT_TRUE(f.has("create accept value:accept4()")) << f.dump;
  EXPECT_TRUE(f.has("listener local:f:l")) << f.dump;
  const facts::Create *accepted = nullptr;
  for (const facts::Create &c : f.p().creates)
    if (c.how == facts::CreateHow::Accept)
      accepted = &c;
  ASSERT_TRUE(accepted);
  EXPECT_EQ(accepted->family, facts::Family::Unix);
  EXPECT_EQ(accepted->type, 1);
}

TEST(Extract, ExternalSockets) {
  Linked f = one("int sd_listen_fds(int);\n#define SD_LISTEN_FDS_START 3\n"
                 "int android_get_control_socket(const char *);"
                 "static void use(int fd) { listen(fd, 1); }"
                 "void f(void) { int a = SD_LISTEN_FDS_START + 0; listen(a, 1); use(3);"
                 "int b = android_get_control_socket(\"x\"); listen(b, 1); }");
  EXPECT_TRUE(f.has("create external const:3")) << f.dump;
  EXPECT_TRUE(f.has("create external value:android_get_control_socket()")) << f.dump;
  // fd 3 spelled as a number and as SD_LISTEN_FDS_START is one inherited socket.
  std::size_t constants = 0;
  for (const facts::Create &c : f.p().creates)
    constants += c.how == facts::CreateHow::External && c.creator != "android_get_control_socket";
  EXPECT_EQ(constants, 1u) << f.dump;
}

TEST(Extract, ConfiguredProducerAndExternalSource) {
  Linked f = one("int open_inet(void); int open_unix(void); int get_inherited(void);"
                 "void f(void) { listen(open_inet(), 1); listen(open_unix(), 1); listen(get_inherited(), 1); }",
                 options({{"SocketProducers", "open_inet:AF_INET;open_unix"},
                          {"ExternalSocketSources", "get_inherited"}}));
  EXPECT_TRUE(f.has("create producer value:open_inet() line")) << f.dump;
  EXPECT_TRUE(f.has("family AF_INET\n")) << f.dump;
  EXPECT_TRUE(f.has("create producer value:open_unix() line 10 family AF_UNIX\n")) << f.dump;
  EXPECT_TRUE(f.has("create external value:get_inherited()")) << f.dump;
}

// A maker that binds, or listens, before it returns (docs/models.md): its socket's type from a
// constant argument or the caller's, and the event at its call; one that binds nothing has none.
TEST(Extract, SocketMakerThatBindsOrListens) {
  Linked f = one("int local_server(const char *name, int type); int local_socket(int type);\n"
                 "int dgram(void) { return local_server(\"a\", 2); }\n"
                 "int seqpacket(void) { return local_server(\"b\", 5 | 02000000); }\n"
                 "int typed(int t) { return local_server(\"c\", t); }\n"
                 "int plain(void) { return local_socket(2); }\n",
                 options({{"SocketProducers", "local_server:AF_UNIX:arg1:listens;local_socket:AF_UNIX:arg0"}}));
  EXPECT_TRUE(f.has("create producer value:local_server() line 11 family AF_UNIX type 2\n")) << f.dump;
  EXPECT_TRUE(f.has("create producer value:local_server() line 12 family AF_UNIX type 5\n")) << f.dump;
  EXPECT_TRUE(f.has("create producer value:local_socket() line 14 family AF_UNIX type 2\n")) << f.dump;
  EXPECT_TRUE(f.has("bind value:local_server() line 11 by local_server\n")) << f.dump;
  EXPECT_TRUE(f.has("listen value:local_server() line 12 by local_server\n")) << f.dump;
  // The type is the caller's: surely bound, listening only if the type says so.
  EXPECT_TRUE(f.has("bind value:local_server() line 13 by local_server\n")) << f.dump;
  EXPECT_FALSE(f.has("line 14 by local_socket")) << f.dump;
  std::vector<std::string> errors;
  ProjectOptions bad = ProjectOptions::parse(
      [](llvm::StringRef o) -> std::optional<std::string> {
        if (o == "SocketProducers")
          return std::string("a:AF_UNIX:SOCK_RAW;b:AF_UNIX:arg1:accepts;c:AF_UNIX:SOCK_DGRAM:binds");
        return std::nullopt;
      },
      [&](const std::string &m) { errors.push_back(m); });
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("unknown type 'SOCK_RAW' for 'a'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("unknown state 'accepts' for 'b'"), std::string::npos) << errors[1];
  EXPECT_FALSE(bad.socketProducers.count("a") || bad.socketProducers.count("b"));
  EXPECT_TRUE(bad.socketProducers.lookup("c").binds);
  // The built-in catalog's (models/sockets.yaml) come first.
  EXPECT_TRUE(bad.socketProducers.lookup("socket_local_server").listens);
  EXPECT_EQ(bad.socketProducers.lookup("socket_local_server").typeArg, 2);
}

// A library fd owner class's model as a check option (docs/models.md): what its methods and
// constructors do, its type and its family by a word of its type; a malformed one is named.
TEST(Extract, LibraryFdOwnerClassOption) {
  std::vector<std::string> errors;
  ProjectOptions o = ProjectOptions::parse(
      [](llvm::StringRef name) -> std::optional<std::string> {
        if (name == "FdOwnerClasses")
          return std::string("net::Acceptor|open=socket+listen=listen+set_option=option+connect=connect+send=send|"
                             "Endpoint=listen|SOCK_STREAM|local::=AF_UNIX|connect=connect+write=send;"
                             "bad::One|listen=close;bad::Two||||local::=AF_UNIXX;bad::Three||Endpoint=accept;"
                             "bad::Four||Options=option;bad::Five|||||write=listen;UniqueFd");
        return std::nullopt;
      },
      [&](const std::string &m) { errors.push_back(m); });
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_NE(errors[0].find("'listen=close' of 'bad::One'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("'local::=AF_UNIXX' of 'bad::Two'"), std::string::npos) << errors[1];
  // accept, option and connect are a method's effects only: a constructor makes its own object's socket.
  EXPECT_NE(errors[2].find("'Endpoint=accept' of 'bad::Three'"), std::string::npos) << errors[2];
  EXPECT_NE(errors[3].find("'Options=option' of 'bad::Four'"), std::string::npos) << errors[3];
  // A free function is read only for what it does to the object it is handed: connect or send.
  EXPECT_NE(errors[4].find("'write=listen' of 'bad::Five' is not NAME=connect or send"), std::string::npos) << errors[4];
  EXPECT_TRUE(llvm::is_contained(o.fdOwnerClasses, "net::Acceptor"));
  EXPECT_TRUE(llvm::is_contained(o.fdOwnerClasses, "UniqueFd"));
  EXPECT_FALSE(llvm::is_contained(o.fdOwnerClasses, "bad::One") || llvm::is_contained(o.fdOwnerClasses, "bad::Two"));
  EXPECT_EQ(o.fdOwnerModels.count("UniqueFd"), 0u); // it only owns
  const FdOwnerModel &acceptor = o.fdOwnerModels.at("net::Acceptor");
  ASSERT_EQ(acceptor.methods.size(), 5u);
  EXPECT_EQ(acceptor.methods[1], std::make_pair(std::string("listen"), OwnerEffect::Listen));
  EXPECT_EQ(acceptor.methods[2], std::make_pair(std::string("set_option"), OwnerEffect::Option));
  EXPECT_EQ(acceptor.methods[3], std::make_pair(std::string("connect"), OwnerEffect::Connect));
  EXPECT_EQ(acceptor.methods[4], std::make_pair(std::string("send"), OwnerEffect::Send));
  ASSERT_EQ(acceptor.functions.size(), 2u);
  EXPECT_EQ(acceptor.functions[1], std::make_pair(std::string("write"), OwnerEffect::Send));
  EXPECT_EQ(acceptor.scope, "net");
  ASSERT_EQ(acceptor.constructors.size(), 1u);
  EXPECT_EQ(acceptor.type, 1);
  ASSERT_EQ(acceptor.families.size(), 1u);
  EXPECT_EQ(acceptor.families[0].second, "AF_UNIX");
  // The built-in catalog's Boost.Asio classes (models/sockets.yaml) come first.
  EXPECT_EQ(o.fdOwnerModels.count("boost::asio::basic_socket_acceptor"), 1u);
  // The free functions are part of what is extracted: the facts cache keys on them.
  EXPECT_NE(o.extractionFingerprint().find("|gwrite="), std::string::npos);
}

// std::bind's values are the bound function's arguments, each at its own parameter; the general
// rule for a call passing an fd with a function (the fd goes to its first int parameter) is not
// applied to a bind call, nor to std::async's.
TEST(Extract, BoundValuesReachTheirOwnParameter) {
  Linked f = cxx("#include <functional>\n#include <future>\n"
                 "void post(std::function<void()> job);\n"
                 "struct S {\n"
                 "  void handle(int serial, int peer);\n"
                 "  void run(int l) {\n"
                 "    int serial = 7;\n"
                 "    int peer = accept(l, 0, 0);\n"
                 "    post(std::bind(&S::handle, this, serial, peer));\n"
                 "    std::async(audit, serial, peer);\n"
                 "  }\n"
                 "  static void audit(int serial, int peer);\n"
                 "};\n");
  EXPECT_TRUE(f.has("flow local:S::run:peer -> param:S::handle#1")) << f.dump;
  EXPECT_FALSE(f.has("flow local:S::run:peer -> param:S::handle#0")) << f.dump;
  EXPECT_TRUE(f.has("flow local:S::run:peer -> param:S::audit#1")) << f.dump;
  EXPECT_FALSE(f.has("flow local:S::run:peer -> param:S::audit#0")) << f.dump;
}

TEST(Extract, NonSocketFdsAreKnown) {
  Linked f = one("#include <fcntl.h>\nvoid f(void) { int p[2]; pipe(p); int o = open(\"/x\", O_RDONLY); listen(o, 1); listen(p[0], 1); }");
  EXPECT_TRUE(f.has("create not-socket value:open()")) << f.dump;
  EXPECT_TRUE(f.has("create not-socket local:f:p[0]")) << f.dump;
}

TEST(Extract, ACountOfThreeIsNotInheritedFdThree) {
  // systemd's close_many(copy_fd, 3): a size_t count; and a base of 16 passed to a parser.
  Linked f = one("typedef unsigned long size_t;"
                 "void close_many(const int fds[], size_t n) { for (size_t i = 0; i < n; i++) close(fds[i]); }"
                 "int parse(const char *s, unsigned base, int *out);"
                 "static void use(int fd) { listen(fd, 1); }"
                 "void f(int *fds) { int v; close_many(fds, 3); parse(\"x\", 16, &v); use(4); }");
  std::vector<std::string> external;
  for (const facts::Create &c : f.p().creates)
    if (c.how == facts::CreateHow::External)
      external.push_back(c.creator);
  EXPECT_EQ(external, std::vector<std::string>{"fd 4"}) << f.dump;
}

TEST(Extract, SmallConstantsAreNotSockets) {
  Linked f = one("void f(void) { int fd = -1; int z = 0; fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); listen(z, 1); }");
  for (const facts::Create &c : f.p().creates)
    EXPECT_NE(c.how, facts::CreateHow::External) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Options

TEST(Extract, SetsockoptValueFromPointedInt) {
  Linked f = one("void f(int on) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); int one = 1, zero = 0;"
                 "setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);"
                 "setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &zero, sizeof zero);"
                 "setsockopt(fd, SOL_SOCKET, SO_PASSSEC, &on, sizeof on);"
                 "setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){1}, sizeof(int)); }");
  EXPECT_TRUE(f.has("option SO_PASSCRED true local:f:fd")) << f.dump;
  EXPECT_TRUE(f.has("option SO_PASSCRED false local:f:fd")) << f.dump;
  EXPECT_TRUE(f.has("option SO_PASSSEC maybe local:f:fd")) << f.dump;
  EXPECT_EQ(f.p().options.size(), 4u) << f.dump;
}

TEST(Extract, GetsockoptAndPeercredAreNotOptions) {
  Linked f = one("void f(int fd) { struct ucred uc; socklen_t len = sizeof uc; int v; "
                 "getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len);"
                 "getsockopt(fd, SOL_SOCKET, SO_PASSCRED, &v, &len); }");
  EXPECT_TRUE(f.p().options.empty()) << f.dump;
}

TEST(Extract, WrapperCallPassingTheConstantIsAnOption) {
  Linked f = one("int set_int_option(int fd, int level, int opt, int value);"
                 "void f(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); set_int_option(fd, SOL_SOCKET, SO_PASSCRED, 1); }");
  EXPECT_TRUE(f.has("option SO_PASSCRED true local:f:fd line 10 wrapper")) << f.dump;
  EXPECT_FALSE(f.has("const:16")) << f.dump; // SO_PASSCRED is not an inherited fd
}

TEST(Extract, ConfiguredWrapperWithoutTheConstant) {
  Linked f = one("int socket_set_passcred(int fd, int on);"
                 "void f(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); socket_set_passcred(fd, 1); }",
                 options({{"OptionWrappers", "socket_set_passcred"}}));
  EXPECT_TRUE(f.has("option SO_PASSCRED true local:f:fd")) << f.dump;
}

TEST(Extract, FamilyGuardMarksOption) {
  Linked f = one("void f(int fd, int family) { int on = 1; if (family == AF_UNIX)"
                 "setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  EXPECT_TRUE(f.has("guarded")) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Flows

TEST(Extract, StructFieldIsOnePlaceAcrossFunctions) {
  Linked f = one("struct server { int fd; };"
                 "void open_it(struct server *s) { s->fd = socket(AF_UNIX, SOCK_STREAM, 0); }"
                 "void enable(struct server *s) { int on = 1; setsockopt(s->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  // Read through a pointer, the field is a place of what the pointer points to; a pointer nobody
  // in the program hands over may point to any object of the record: the record's field place.
  EXPECT_TRUE(f.has("option SO_PASSCRED true *param:enable#0.fd")) << f.dump;
  EXPECT_TRUE(f.has("flow field:server::fd -> *param:enable#0.fd resolved")) << f.dump;
  EXPECT_EQ(originsAt(f.p(), firstOption(f.p())), std::vector<std::string>{"socket:socket"});
  EXPECT_EQ(f.p().sites[f.p().options[0].site].text, "s->fd");
}

TEST(Extract, ContainerOfInEachSpellingItsMacrosTake) {
  // One fact per spelling: the member path (nested here) and the pointer it is taken of.
  const char *spellings[] = {
      "(struct conn *)((char *)n - offsetof(struct conn, link.node))",
      "(struct conn *)((char *)n - __builtin_offsetof(struct conn, link.node))",
      "(struct conn *)((uintptr_t)n - offsetof(struct conn, link.node))",
      "(struct conn *)((char *)n - (size_t)&((struct conn *)0)->link.node)",
      "({ const typeof(((struct conn *)0)->link.node) *__mptr = (n); "
      "(struct conn *)((char *)__mptr - offsetof(struct conn, link.node)); })",
  };
  for (const char *spelling : spellings) {
    facts::Unit u = extractUnit({"c.c", std::string("#include <stddef.h>\n#include <stdint.h>\n"
                                                    "struct node { struct node *next; };"
                                                    "struct link { struct node node; };"
                                                    "struct conn { int fd; struct link link; };"
                                                    "int fd_of(struct node *n) { struct conn *c = ") +
                                            spelling + "; return c->fd; }"},
                                {});
    ASSERT_EQ(u.containers.size(), 1u) << spelling;
    EXPECT_EQ(u.containers[0].member, "link.node") << spelling;
  }
  // An array element's offset names no member: no fact, the pointer's own value flows on.
  facts::Unit indexed = extractUnit({"c.c", "#include <stddef.h>\n"
                                            "struct conn { int fd; int slots[4]; };"
                                            "int fd_of(int *slot) { struct conn *c = (struct conn *)((char *)slot - "
                                            "offsetof(struct conn, slots[2])); return c->fd; }"},
                                    {});
  EXPECT_TRUE(indexed.containers.empty());
}

TEST(Extract, RegistrationHandsTheCallbackItsUserData) {
  // watch(loop, fd, cb, data) calls cb(fd, data); post(fn, data) calls fn(data). The callback's
  // data is the object registered with it, and a callback only posted counts as called: its
  // parameter is not also unknown.
  ProjectOptions o = options({{"CallbackRegistrars", "watch:1:2:0:3>1;post:-1:0:-1:1>0"}});
  Linked f = one("struct conn { int fd; };"
                 "void watch(void *loop, int fd, void (*cb)(int, void *), void *data);"
                 "void post(void (*fn)(void *), void *data);"
                 "static void on_readable(int fd, void *data) { struct conn *c = data; (void)fd; (void)c; }"
                 "static void later(void *data) { struct conn *c = data; int on = 1;"
                 "  setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                 "void add(void *loop, struct conn *client, struct conn *other) {"
                 "  client->fd = socket(AF_UNIX, SOCK_STREAM, 0); other->fd = socket(AF_UNIX, SOCK_DGRAM, 0);"
                 "  watch(loop, client->fd, on_readable, client); post(later, other); }",
                 o);
  EXPECT_TRUE(f.has("flow param:add#1 -> param:on_readable#1 callback")) << f.dump;
  EXPECT_TRUE(f.has("flow param:add#2 -> param:later#0 callback")) << f.dump;
  EXPECT_FALSE(f.has("flow param:add#1 -> param:later#0")) << f.dump;
  for (Id fn = 0; fn < f.p().functions.size(); ++fn)
    if (f.p().functions[fn].name == "later")
      EXPECT_TRUE(f.p().hasCaller(fn));
}

TEST(Extract, LibraryHolderKeepsTheFdOfEachObject) {
  // box_init(&box, fd) keeps fd in the box; box_fd(&box) gives it back: the fd of that box, not
  // of every box (models.md, fd_holders `holder`).
  ProjectOptions o = options({{"FdHolders", "box_init:1:box_fd:-1:Box:0"}});
  Linked f = one("struct box { void *opaque; };"
                 "void box_init(struct box *b, int fd); int box_fd(const struct box *b);"
                 "void f(void) { struct box a, b;"
                 "  box_init(&a, socket(AF_UNIX, SOCK_DGRAM, 0)); box_init(&b, socket(AF_UNIX, SOCK_STREAM, 0));"
                 "  listen(box_fd(&b), 1); }",
                 o);
  ASSERT_EQ(f.p().lifecycle.size(), 1u) << f.dump;
  std::vector<Id> origins = f.p().originsOf(f.p().lifecycle[0].place);
  ASSERT_EQ(origins.size(), 1u) << f.dump;
  EXPECT_EQ(f.p().creates[origins[0]].type, 1) << f.dump; // SOCK_STREAM
}

TEST(Link, HelperCallingItsParameterIsMadePerCall) {
  // run(fd, fn) calls fn(fd): each call of run() calls its own function with its own socket, so
  // the listening one reaches only serve() and the datagram one only note().
  Linked f = one("static void run(int fd, void (*fn)(int)) { fn(fd); }"
                 "static void serve(int fd) { listen(fd, 1); }"
                 "static void note(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                 "void f(void) { run(socket(AF_UNIX, SOCK_STREAM, 0), serve);"
                 "  run(socket(AF_UNIX, SOCK_DGRAM, 0), note); }");
  ASSERT_EQ(f.p().lifecycle.size(), 1u) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place).size(), 1u) << f.dump;
  ASSERT_EQ(f.p().options.size(), 1u) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().options[0].place).size(), 1u) << f.dump;
  // The same through a helper that only hands its function on to run(): made per call too.
  Linked chained = one("static void run(int fd, void (*fn)(int)) { fn(fd); }"
                       "static void with(int fd, void (*fn)(int)) { run(fd, fn); }"
                       "static void serve(int fd) { listen(fd, 1); }"
                       "static void note(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                       "void f(void) { with(socket(AF_UNIX, SOCK_STREAM, 0), serve);"
                       "  with(socket(AF_UNIX, SOCK_DGRAM, 0), note); }");
  ASSERT_EQ(chained.p().lifecycle.size(), 1u) << chained.dump;
  EXPECT_EQ(originsAt(chained.p(), chained.p().lifecycle[0].place).size(), 1u) << chained.dump;
  ASSERT_EQ(chained.p().options.size(), 1u) << chained.dump;
  EXPECT_EQ(originsAt(chained.p(), chained.p().options[0].place).size(), 1u) << chained.dump;
}

TEST(Extract, ArgumentFlowsIntoParameterAndReturnFlowsBack) {
  // make() configures what it makes: one socket, whoever calls it (see SocketMakerCallsAreSocketsOfTheirOwn).
  Linked f = one("static int make(void) { int s = socket(AF_UNIX, SOCK_STREAM, 0); int on = 1;"
                 " setsockopt(s, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); return s; }"
                 "static void use(int fd) { listen(fd, 1); }"
                 "void f(void) { int fd = make(); use(fd); }");
  EXPECT_TRUE(f.has("-> ret:make")) << f.dump;
  EXPECT_TRUE(f.has("flow ret:make -> value:make() return")) << f.dump; // this call's value
  EXPECT_TRUE(f.has("flow value:make() -> local:f:fd")) << f.dump;
  EXPECT_TRUE(f.has("-> param:use#0 argument")) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"});
}

TEST(Extract, SocketMakerCallsAreSocketsOfTheirOwn) {
  // pa_socket_cloexec(): a helper that only makes and returns a socket is a new socket per call.
  Linked f = one("static int make(void) { return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); }"
                 "void f(void) { int a = make(); int b = make(); listen(a, 1);"
                 " int on = 1; setsockopt(b, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  EXPECT_FALSE(f.has("flow ret:make -> value:make()")) << f.dump;
  const Program &p = f.p();
  std::vector<Id> listened = p.originsOf(p.lifecycle[0].place), enabled = p.originsOf(p.options[0].place);
  ASSERT_EQ(listened.size(), 1u) << f.dump;
  ASSERT_EQ(enabled.size(), 1u) << f.dump;
  EXPECT_NE(listened[0], enabled[0]) << f.dump;
  EXPECT_EQ(p.creates[listened[0]].family, facts::Family::Unix);
  EXPECT_EQ(p.creates[listened[0]].origin, "make() in f()");
  EXPECT_EQ(p.sites[p.creates[listened[0]].site].function, p.sites[p.lifecycle[0].site].function);
}

TEST(Extract, ParameterOfFunctionWithoutCallerIsItsOwnOrigin) {
  Linked f = one("void enable(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  EXPECT_TRUE(f.has("create parameter param:enable#0")) << f.dump;
}

TEST(Extract, ConditionalOperatorFlowsBothBranches) {
  Linked f = one("void f(int unix_only) { int a = socket(AF_UNIX, SOCK_STREAM, 0); int b = socket(AF_INET, SOCK_STREAM, 0);"
                 "int s = unix_only ? a : b; listen(s, 1); }");
  EXPECT_EQ(f.p().originsOf(f.p().lifecycle[0].place).size(), 2u) << f.dump;
}

TEST(Extract, OutParametersLinkBothSides) {
  Linked f = one("static void make(int *out) { *out = socket(AF_UNIX, SOCK_STREAM, 0); }"
                 "void f(void) { int fd; make(&fd); listen(fd, 1); }");
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, EscapedFunctionParameterAlsoGetsUnknownSockets) {
  Linked f = one("static void on_ready(int fd) { listen(fd, 1); }"
                 "void (*handler)(int) = on_ready;"
                 "void f(void) { on_ready(socket(AF_UNIX, SOCK_STREAM, 0)); }");
  std::vector<std::string> origins = originsAt(f.p(), f.p().lifecycle[0].place);
  EXPECT_NE(std::find(origins.begin(), origins.end(), "unknown:"), origins.end()) << f.dump;
  EXPECT_NE(std::find(origins.begin(), origins.end(), "socket:socket"), origins.end()) << f.dump;
}

TEST(Extract, UntrackedWriteIsAnUnknownOrigin) {
  Linked f = one("void f(int *fds, int i) { int fd = -1; fd = fds[i] + 1; listen(fd, 1); }");
  EXPECT_TRUE(f.has("create unknown local:f:fd")) << f.dump;
}

TEST(Extract, RunTimeIndexReadsEveryElementInexactly) {
  Linked f = one("void f(int i) { int sv[2]; socketpair(AF_UNIX, SOCK_STREAM, 0, sv); int fd = sv[i]; listen(fd, 1); }");
  const Program &p = f.p();
  std::vector<Id> origins = p.originsOf(p.lifecycle[0].place);
  ASSERT_EQ(origins.size(), 2u) << f.dump;
  EXPECT_FALSE(p.reachesExactly(origins[0], p.lifecycle[0].place)) << f.dump;
}

TEST(Extract, FieldArrayElements) {
  Linked f = one("struct pair { int sv[2]; };"
                 "void f(struct pair *p) { socketpair(AF_UNIX, SOCK_STREAM, 0, p->sv); listen(p->sv[0], 1); }");
  // Stored through the pointer (its store side), read back by the listen() through it.
  EXPECT_TRUE(f.has("create socketpair *param:f#0.sv[0]=")) << f.dump;
  EXPECT_TRUE(f.has("peer *param:f#0.sv[1]=")) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socketpair:socketpair"}) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Flow-sensitive locals: a reassignment kills the definitions before it.

TEST(Extract, ReassignmentReplacesTheSocket) {
  Linked f = one("void f(void) { int fd = socket(AF_INET, SOCK_STREAM, 0); close(fd);"
                 "fd = socket(AF_UNIX, SOCK_DGRAM, 0); int on = 1;"
                 "setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  const Program &p = f.p();
  std::vector<Id> origins = p.originsOf(firstOption(p));
  ASSERT_EQ(origins.size(), 1u) << f.dump;
  EXPECT_EQ(p.creates[origins[0]].family, facts::Family::Unix) << f.dump;
}

TEST(Extract, DefinitionsMergeWhereBranchesJoin) {
  Linked f = one("void f(int flag) { int fd = socket(AF_INET, SOCK_STREAM, 0);"
                 "if (flag) fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); }");
  EXPECT_EQ(f.p().originsOf(f.p().lifecycle[0].place).size(), 2u) << f.dump;
}

TEST(Extract, LoopCarriedDefinitionReachesTheLoopHead) {
  Linked f = one("void f(int n) { int fd = socket(AF_INET, SOCK_STREAM, 0);"
                 "for (int i = 0; i < n; i++) { listen(fd, 1); fd = socket(AF_UNIX, SOCK_STREAM, 0); } }");
  EXPECT_EQ(f.p().originsOf(f.p().lifecycle[0].place).size(), 2u) << f.dump;
}

TEST(Extract, ReassignedParameterKeepsItsEntryValueBefore) {
  Linked f = one("static void g(int fd) { listen(fd, 1); fd = socket(AF_INET, SOCK_STREAM, 0); connect(fd, 0, 0); }"
                 "void f(void) { g(socket(AF_UNIX, SOCK_STREAM, 0)); }");
  const Program &p = f.p();
  for (const facts::LifecycleEvent &e : p.lifecycle) {
    std::vector<Id> origins = p.originsOf(e.place);
    ASSERT_EQ(origins.size(), 1u) << f.dump;
    EXPECT_EQ(p.creates[origins[0]].family,
              e.kind == facts::Lifecycle::Listen ? facts::Family::Unix : facts::Family::Inet)
        << f.dump;
  }
}

TEST(Extract, AddressTakenLocalStaysFlowInsensitive) {
  Linked f = one("static void fill(int *p) { (void)p; }"
                 "void f(void) { int fd = socket(AF_INET, SOCK_STREAM, 0); fill(&fd);"
                 "fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); }");
  EXPECT_EQ(f.p().originsOf(f.p().lifecycle[0].place).size(), 2u) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Credentials

const char *const kRecvPrefix =
    "static int recv_creds(int fd) { char buf[64]; char c[CMSG_SPACE(sizeof(struct ucred))];"
    "struct iovec iov = {buf, sizeof buf}; struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1,"
    ".msg_control = c, .msg_controllen = sizeof c}; if (recvmsg(fd, &m, 0) < 0) return -1;";

TEST(Extract, ReadsCredentialsInCmsgLoop) {
  Linked f = one(std::string(kRecvPrefix) +
                 "for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))"
                 "if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_CREDENTIALS) return 1; return 0; }");
  EXPECT_TRUE(f.has("receive recvmsg param:recv_creds#0 line 10 reads_credentials")) << f.dump;
}

TEST(Extract, ReadsCredentialsAsUcredCast) {
  Linked f = one(std::string(kRecvPrefix) +
                 "struct ucred *u = (struct ucred *)CMSG_DATA(CMSG_FIRSTHDR(&m)); return u->uid; }");
  EXPECT_TRUE(f.has("reads_credentials")) << f.dump;
}

TEST(Extract, ReadsCredentialsThroughHelperTakingCmsghdr) {
  Linked f = one("static int is_creds(const struct cmsghdr *c) { return c->cmsg_type == SCM_CREDENTIALS; }" +
                 std::string(kRecvPrefix) + "return is_creds(CMSG_FIRSTHDR(&m)); }");
  EXPECT_TRUE(f.has("reads_credentials")) << f.dump;
}

TEST(Extract, SendingCredentialsIsNotReading) {
  Linked f = one(std::string(kRecvPrefix) + "return 0; }"
                 "void send_creds(int fd) { char c[CMSG_SPACE(sizeof(struct ucred))];"
                 "struct msghdr m = {.msg_control = c, .msg_controllen = sizeof c};"
                 "struct cmsghdr *h = CMSG_FIRSTHDR(&m); h->cmsg_type = SCM_CREDENTIALS; sendmsg(fd, &m, 0); }");
  EXPECT_FALSE(f.has("reads_credentials")) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Order

TEST(Program, CfgOrder) {
  Linked f = one("void f(const struct sockaddr_un *a, int flag) { int on = 1; int fd = socket(AF_UNIX, SOCK_DGRAM, 0);"
                 "if (flag) setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);"
                 "bind(fd, (const struct sockaddr *)a, sizeof *a);"
                 "setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  const Program &p = f.p();
  Id early = p.options[0].site, late = p.options[1].site, bind = p.lifecycle[0].site;
  EXPECT_TRUE(p.mayPrecede(early, bind, false));
  EXPECT_FALSE(p.mustFollow(bind, early, true));
  EXPECT_TRUE(p.mustFollow(bind, late, false));
  EXPECT_FALSE(p.mayPrecede(late, bind, true));
}

TEST(Program, OrderAcrossFunctionsThroughTheCallThatPassesTheSocket) {
  Linked f = one("static void enable(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                 "void f(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); enable(fd); }");
  const Program &p = f.p();
  CredentialQueries q(p);
  Id origin = p.originsOf(p.lifecycle[0].place)[0];
  const facts::OptionSet &o = p.options[0];
  const facts::LifecycleEvent &l = p.lifecycle[0];
  EXPECT_FALSE(q.mayPrecede(origin, o.site, o.place, l.site, l.place, true));
  EXPECT_TRUE(q.mustFollow(origin, l.site, l.place, o.site, o.place, false));
}

TEST(Program, OrderWithinOneTurnOfALoopThatAcceptsEachTime) {
  // The read of one connection comes after the option on it; only the previous turn's read
  // (another connection) comes before this turn's option, and does not count.
  Linked f = one("static void reads(int c) { char b; read(c, &b, 1); }"
                 "void f(int l) { int on = 1; for (;;) { int c = accept(l, 0, 0);"
                 "setsockopt(c, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); reads(c); close(c); } }"
                 "void g(int l) { int on = 1; for (;;) { int c = accept(l, 0, 0); reads(c);"
                 "setsockopt(c, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); close(c); } }");
  const Program &p = f.p();
  CredentialQueries q(p);
  ASSERT_EQ(p.options.size(), 2u);
  ASSERT_EQ(p.receives.size(), 1u);
  for (const facts::OptionSet &o : p.options) {
    Id origin = p.originsOf(o.place)[0];
    const facts::Create &accepted = p.creates[origin];
    ASSERT_EQ(accepted.how, facts::CreateHow::Accept);
    const facts::Receive &r = p.receives[0];
    bool readFirst = q.inOneRun(origin, accepted.site, accepted.place, r.site, r.place, o.site, o.place, true);
    // Without the accept() as a barrier, the loop makes every order possible.
    EXPECT_TRUE(q.mayPrecede(origin, r.site, r.place, o.site, o.place, false));
    EXPECT_EQ(readFirst, p.functions[p.sites[o.site].function].name == "g") << p.functions[p.sites[o.site].function].name;
  }
}

TEST(Program, OrderAcrossUnrelatedFunctionsIsUnknown) {
  Linked f = one("void a(int fd) { listen(fd, 1); } void b(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }");
  const Program &p = f.p();
  EXPECT_TRUE(p.mayPrecede(p.options[0].site, p.lifecycle[0].site, true));
  EXPECT_FALSE(p.mustFollow(p.lifecycle[0].site, p.options[0].site, false));
}

// ---------------------------------------------------------------------------------------------
// C++

TEST(Extract, CxxMemberThroughThis) {
  Linked f = cxx("class Server { int fd_ = -1; public: void open() { fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0); }"
                 "void enable() { int on = 1; ::setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); } };"
                 "void run() { Server s; s.open(); s.enable(); }");
  // this->fd_ of the object each call is made on.
  EXPECT_TRUE(f.has("option SO_PASSCRED true *param:Server::enable#this.fd_")) << f.dump;
  EXPECT_TRUE(f.has("resolves *param:Server::enable#this -> local:run:s")) << f.dump;
  EXPECT_EQ(originsAt(f.p(), firstOption(f.p())), std::vector<std::string>{"socket:socket"});
}

TEST(Extract, ConstructorArgumentAndMemberInitializer) {
  Linked f = cxx("class Conn { public: explicit Conn(int fd) : fd_(fd) {}"
                 "void enable() { int on = 1; setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                 "private: int fd_; };"
                 "void run(int l) { Conn c(accept(l, nullptr, nullptr)); c.enable(); }");
  EXPECT_EQ(originsAt(f.p(), firstOption(f.p())), std::vector<std::string>{"accept:accept"}) << f.dump;
}

TEST(Extract, MakeUniqueAndEmplaceReachTheConstructor) {
  Linked f = cxx("#include <memory>\n#include <vector>\n"
                 "struct Conn { explicit Conn(int fd) : fd_(fd) {} int fd_; };"
                 "void enable(const Conn &c) { int on = 1; setsockopt(c.fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                 "void run(std::vector<Conn> &v) { auto c = std::make_unique<Conn>(socket(AF_UNIX, SOCK_STREAM, 0));"
                 "v.emplace_back(socket(AF_INET, SOCK_STREAM, 0)); enable(*c); }"
                 "void other(std::vector<Conn> &v) { listen(v[0].fd_, 1); }");
  // Each builds its own object: the unique_ptr's holds the AF_UNIX socket, the vector's elements
  // the AF_INET one.
  const Program &p = f.p();
  std::vector<Id> origins = p.originsOf(firstOption(p));
  ASSERT_EQ(origins.size(), 1u) << f.dump;
  EXPECT_EQ(p.creates[origins[0]].family, facts::Family::Unix) << f.dump;
}

TEST(Extract, GetterReturnsTheMember) {
  Linked f = cxx("class Server { public: Server() : fd_(socket(AF_UNIX, SOCK_STREAM, 0)) {} int fd() const { return fd_; }"
                 "private: int fd_; };"
                 "void run(Server &s) { listen(s.fd(), 1); }");
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, FdOwnerObjectsAreValuesNotOneSharedField) {
  const char *owner = "class UniqueFd { public: UniqueFd() = default; explicit UniqueFd(int fd) : fd_(fd) {}"
                      "~UniqueFd() { if (fd_ >= 0) ::close(fd_); } int get() const { return fd_; }"
                      "int release() { int f = fd_; fd_ = -1; return f; } void reset(int fd = -1) { fd_ = fd; }"
                      "private: int fd_ = -1; };";
  Linked f = cxx(std::string(owner) +
                 "void run() { UniqueFd a(socket(AF_UNIX, SOCK_STREAM, 0)); UniqueFd b(socket(AF_INET, SOCK_STREAM, 0));"
                 "int on = 1; setsockopt(a.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on); UniqueFd c; c.reset(b.release());"
                 "listen(c.get(), 1); }");
  const Program &p = f.p();
  std::vector<Id> option = p.originsOf(firstOption(p));
  ASSERT_EQ(option.size(), 1u) << f.dump;
  EXPECT_EQ(p.creates[option[0]].family, facts::Family::Unix);
  std::vector<Id> listen = p.originsOf(p.lifecycle[0].place);
  ASSERT_EQ(listen.size(), 1u) << f.dump;
  EXPECT_EQ(p.creates[listen[0]].family, facts::Family::Inet);
}

TEST(Extract, ConfiguredFdOwnerClass) {
  Linked f = cxx("struct Handle { Handle(int f) : v(f) {} int get() const { return v; } int v; int flags = 0; };"
                 "void run() { Handle h(socket(AF_UNIX, SOCK_STREAM, 0)); listen(h.get(), 1); }",
                 options({{"FdOwnerClasses", "Handle"}}));
  EXPECT_TRUE(f.has("flow value:socket() -> local:run:h")) << f.dump;
}

TEST(Extract, LambdaCapturingASocket) {
  Linked f = cxx("template <typename F> void later(F f) { f(); }"
                 "void run() { int fd = socket(AF_UNIX, SOCK_DGRAM, 0); later([fd] { listen(fd, 1); }); }");
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, VirtualCallReachesEveryOverrider) {
  Linked f = cxx("struct Handler { virtual void on(int fd) = 0; virtual ~Handler() = default; };"
                 "struct A : Handler { void on(int fd) override { listen(fd, 1); } };"
                 "void dispatch(Handler &h) { h.on(socket(AF_UNIX, SOCK_STREAM, 0)); }");
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, TemplateInstantiationsShareOneFunction) {
  Linked f = cxx("template <typename T> void serve(T fd) { listen(fd, 1); }"
                 "void run() { serve(socket(AF_UNIX, SOCK_STREAM, 0)); serve(socket(AF_INET, SOCK_STREAM, 0)); }");
  std::size_t serves = 0;
  for (const facts::Function &fn : f.p().functions)
    serves += fn.name == "serve";
  EXPECT_EQ(serves, 1u) << f.dump;
  // The link makes that one function per call (it listens on what it is handed, and two calls
  // hand it a socket): each call's copy listens on that call's socket only.
  std::set<Id> sockets;
  for (const facts::LifecycleEvent &e : f.p().lifecycle) {
    std::vector<Id> made;
    for (Id origin : f.p().originsOf(e.place))
      if (f.p().creates[origin].how == facts::CreateHow::Socket)
        made.push_back(origin);
    EXPECT_LE(made.size(), 1u) << f.dump;
    sockets.insert(made.begin(), made.end());
  }
  EXPECT_EQ(sockets.size(), 2u) << f.dump;
}

// A pointer converted between two records reads the fields of their common initial sequence as
// the other record's (C11 6.5.2.3p6): libuv's handles share UV_HANDLE_FIELDS, and `data` set on a
// uv_pipe_t is read through the uv_stream_t the callback is handed.
TEST(Extract, CommonInitialSequenceFieldsAreAliasesUpToTheFirstThatDiffers) {
  Linked f = one("struct handle { void *data; int type; long size; int fd; };"
                 "struct pipe_handle { void *data; int type; int flags; int fd; };"
                 "union either { void *data; int type; };"
                 "struct server { struct pipe_handle pipe; int fd; };"
                 "static struct server control, other;"
                 "int on_handle(struct handle *h) { struct server *s = h->data; return listen(s->fd, 1); }"
                 "int main(void) { control.fd = socket(AF_UNIX, SOCK_STREAM, 0); control.pipe.data = &control;"
                 "  other.fd = socket(AF_INET, SOCK_STREAM, 0); other.pipe.data = &other;"
                 "  union either *u = (union either *)&control.pipe; (void)u;"
                 "  return on_handle((struct handle *)&control.pipe); }");
  std::set<std::pair<std::string, std::string>> aliases;
  for (const facts::Unit &u : f.units)
    for (const facts::Flow &flow : u.flows)
      if (flow.kind == facts::FlowKind::Alias)
        aliases.insert({u.places[flow.from].name, u.places[flow.to].name});
  // data and type; size (long) against flags (int) ends the sequence, so fd is not one; a union
  // has no sequence.
  EXPECT_EQ(aliases, (std::set<std::pair<std::string, std::string>>{
                         {"pipe_handle::data", "handle::data"}, {"pipe_handle::type", "handle::type"}}));
  // The callback reads its server's own `data` (the object's field of its record), so listen() is
  // on that server's socket, not on every server's (the record's field, as without the alias).
  ASSERT_EQ(f.p().lifecycle.size(), 1u) << f.dump;
  std::vector<Id> made;
  for (Id origin : f.p().originsOf(f.p().lifecycle[0].place))
    made.push_back(origin);
  ASSERT_EQ(made.size(), 1u) << f.dump;
  EXPECT_EQ(f.p().creates[made[0]].family, facts::Family::Unix) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Callbacks

TEST(Extract, SdEventCallbackGetsTheRegisteredFd) {
  Linked f = one("typedef struct sd_event sd_event; typedef struct sd_event_source sd_event_source;"
                 "typedef int (*sd_event_io_handler_t)(sd_event_source *, int, unsigned, void *);"
                 "int sd_event_add_io(sd_event *, sd_event_source **, int, unsigned, sd_event_io_handler_t, void *);"
                 "static int on_io(sd_event_source *s, int fd, unsigned revents, void *u) { return listen(fd, 1); }"
                 "void setup(sd_event *e) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); sd_event_add_io(e, 0, fd, 1, on_io, 0); }");
  EXPECT_TRUE(f.has("callback local:setup:fd -> on_io#1")) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, ProjectLocalLoopByTheGeneralRule) {
  Linked f = one("typedef void (*handler)(void *ctx, int fd);"
                 "void loop_add(void *loop, int fd, handler h, void *ctx);"
                 "static void on_client(void *ctx, int fd) { listen(fd, 1); }"
                 "void setup(void *loop) { loop_add(loop, socket(AF_UNIX, SOCK_STREAM, 0), on_client, 0); }");
  EXPECT_TRUE(f.has("-> on_client#1")) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, TableOfCallbacksPassedWithTheFd) {
  Linked f = one("struct ops { void (*readable)(int fd); };"
                 "void watch(int fd, const struct ops *ops);"
                 "static void on_read(int fd) { listen(fd, 1); }"
                 "static const struct ops client_ops = { .readable = on_read };"
                 "void setup(void) { watch(socket(AF_UNIX, SOCK_STREAM, 0), &client_ops); }");
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, CallbackGetsTheFdInTheStructItIsHanded) {
  // mcelog's event loop: register_pollcb(fd, POLLIN, cb, data) calls cb(&pollfds[i], data).
  Linked f = one("#include <poll.h>\n"
                 "typedef void (*poll_cb_t)(struct pollfd *pfd, void *data);"
                 "int register_pollcb(int fd, int events, poll_cb_t cb, void *data);"
                 "static void on_accept(struct pollfd *pfd, void *data) { listen(pfd->fd, 1); }"
                 "static struct pollfd others[4];"
                 "void setup(void) { others[0].fd = 0; register_pollcb(socket(AF_UNIX, SOCK_STREAM, 0), POLLIN, on_accept, 0); }");
  // Only the registered socket: not the other fds stored in struct pollfd fields.
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(Extract, UnregisteredStructParameterSeesTheField) {
  Linked f = one("#include <poll.h>\n"
                 "void on_event(struct pollfd *pfd) { listen(pfd->fd, 1); }"
                 "void fill(struct pollfd *p) { p->fd = socket(AF_INET, SOCK_STREAM, 0); }");
  std::vector<std::string> origins = originsAt(f.p(), f.p().lifecycle[0].place);
  EXPECT_NE(std::find(origins.begin(), origins.end(), "socket:socket"), origins.end()) << f.dump;
}

TEST(Extract, EpollDataFieldCarriesTheFd) {
  Linked f = one("#include <sys/epoll.h>\n"
                 "void loop(int ep) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); struct epoll_event ev = {.events = EPOLLIN};"
                 "ev.data.fd = fd; epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev); struct epoll_event out[4];"
                 "int n = epoll_wait(ep, out, 4, -1); for (int i = 0; i < n; i++) listen(out[i].data.fd, 1); }");
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Fd passing

TEST(Extract, PayloadSendAndLoops) {
  Linked f = one("static int send_fd(int over, int fd) { char b[CMSG_SPACE(sizeof(int))]; char x = 0;"
                 "struct iovec iov = {&x, 1}; struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = b, .msg_controllen = sizeof b};"
                 "struct cmsghdr *c = CMSG_FIRSTHDR(&m); c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS;"
                 "c->cmsg_len = CMSG_LEN(sizeof(int)); memcpy(CMSG_DATA(c), &fd, sizeof fd); return sendmsg(over, &m, 0); }"
                 "void f(int ctl) { for (int i = 0; i < 16; i++) { int sv[2]; socketpair(AF_UNIX, SOCK_STREAM, 0, sv); send_fd(ctl, sv[1]); } }"
                 "void g(int ctl) { int r; do r = send_fd(ctl, 3); while (r < 0 && errno == EINTR); }");
  EXPECT_TRUE(f.has("send param:send_fd#0")) << f.dump;
  EXPECT_TRUE(f.has("payload param:send_fd#1 line 10 count 1")) << f.dump;
  EXPECT_TRUE(f.has("loop line 10 trips 16")) << f.dump;
  EXPECT_TRUE(f.has("errno_retry")) << f.dump;
  std::vector<SendSite> sends = expandSends(f.p());
  EXPECT_EQ(sends.size(), 2u) << f.dump; // one per caller of the wrapper
}

TEST(Extract, LimitsPastScmMaxFd) {
  Linked f = one("void f(int s, const int *fds) { char buf[CMSG_SPACE(sizeof(int) * 300)];"
                 "struct msghdr m = {.msg_control = buf, .msg_controllen = sizeof buf}; struct cmsghdr *c = CMSG_FIRSTHDR(&m);"
                 "c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int) * 300); memcpy(CMSG_DATA(c), fds, sizeof(int) * 300); sendmsg(s, &m, 0); }");
  EXPECT_TRUE(f.has("limit cmsg_len 300")) << f.dump;
  EXPECT_TRUE(f.has("limit payload_copy 300")) << f.dump;
  EXPECT_TRUE(f.has("limit buffer_size 300")) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Several units

TEST(Link, HelperInAnotherUnit) {
  Linked f = link({{"server.c",
                    "int read_peer(int fd);"
                    "void serve(void) { int l = socket(AF_UNIX, SOCK_STREAM, 0); listen(l, 1);"
                    "int c = accept(l, 0, 0); read_peer(c); }"},
                   {"peer.c", std::string(kRecvPrefix) +
                                  "struct cmsghdr *h = CMSG_FIRSTHDR(&m); return h && h->cmsg_type == SCM_CREDENTIALS; }"
                                  "int read_peer(int fd) { return recv_creds(fd); }"}});
  const Program &p = f.p();
  ASSERT_EQ(p.receives.size(), 1u) << f.dump;
  EXPECT_EQ(originsAt(p, p.receives[0].place), std::vector<std::string>{"accept:accept"}) << f.dump;
  EXPECT_NE(p.credentialEvidence(p.sites[p.receives[0].site].function), kNone);
  EXPECT_TRUE(p.summary(p.functionByKey("c:@F@read_peer")).params[0].readsCredentials != kNone) << f.dump;
}

TEST(Link, StaticFunctionsOfTwoUnitsStayApart) {
  Linked f = link({{"a.c", "static void use(int fd) { listen(fd, 1); } void a(void) { use(socket(AF_UNIX, SOCK_STREAM, 0)); }"},
                   {"b.c", "static void use(int fd) { listen(fd, 1); } void b(void) { use(socket(AF_INET, SOCK_STREAM, 0)); }"}});
  const Program &p = f.p();
  ASSERT_EQ(p.lifecycle.size(), 2u) << f.dump;
  for (const facts::LifecycleEvent &e : p.lifecycle)
    EXPECT_EQ(p.originsOf(e.place).size(), 1u) << f.dump;
}

// A struct in a header both units include.
std::string writeHeader(const std::string &name, const std::string &text) {
  std::string path = afunix::test_support::scratchDirectory("analysis-test") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Link, FieldWrittenInOneUnitReadInAnother) {
  std::string header = writeHeader("daemon.h", "struct daemon { int ctl; };\n");
  std::string include = "#include \"" + header + "\"\n";
  Linked f = link({{"init.c", include + "void init(struct daemon *d) { d->ctl = socket(AF_UNIX, SOCK_DGRAM, 0); }"},
                   {"use.c", include + "void use(struct daemon *d) { int on = 1; setsockopt(d->ctl, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"}});
  EXPECT_EQ(originsAt(f.p(), firstOption(f.p())), std::vector<std::string>{"socket:socket"}) << f.dump;
}

// One database, two programs around one event loop library whose table is a global: the daemon's
// AF_UNIX listener and an example's TCP listener meet there, so the acceptor's accept() is handed
// both. Each main() reaches only its own listener's code, and only the daemon's reaches the code
// that registers the acceptor (the dispatcher, which both run, calls it through a pointer).
TEST(Link, EachProgramOfADatabaseSeesItsOwnListeners) {
  const std::string loop = "void loop_add(int fd, void (*fn)(int)); void loop_run(void); int publish(void);";
  Linked f = link({{"lib.c", loop +
                                 "static struct { int fd; void (*fn)(int); } table[8]; static int used;"
                                 "void loop_add(int fd, void (*fn)(int)) { table[used].fd = fd; table[used].fn = fn; used++; }"
                                 "void loop_run(void) { for (int i = 0; i < used; i++) table[i].fn(table[i].fd); }"
                                 "static void acceptor(int fd) { int c = accept(fd, 0, 0); close(c); }"
                                 "int publish(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0);"
                                 "  listen(fd, 1); loop_add(fd, acceptor); return fd; }"},
                   {"daemon.c", loop + "int main(void) { publish(); loop_run(); return 0; }"},
                   {"tcp.c", loop + "static void on_tcp(int fd) { close(accept(fd, 0, 0)); }"
                                    "int main(void) { int fd = socket(AF_INET, SOCK_STREAM, 0);"
                                    "  listen(fd, 1); loop_add(fd, on_tcp); loop_run(); return 0; }"}});
  const Program &p = f.p();
  auto mainOf = [&](const std::string &file) {
    for (Id fn = 0; fn < p.functions.size(); ++fn)
      if (p.functions[fn].name == "main" && p.functions[fn].defined &&
          llvm::StringRef(p.files[p.functions[fn].file]).ends_with("/" + file))
        return fn;
    return kNone;
  };
  Id acceptorAccept = kNone;
  for (Id c = 0; c < p.creates.size(); ++c)
    if (p.creates[c].how == facts::CreateHow::Accept &&
        p.functions[p.sites[p.creates[c].site].function].name == "acceptor")
      acceptorAccept = c;
  ASSERT_NE(acceptorAccept, kNone) << f.dump;
  // Merged: the table hands the acceptor both listeners.
  const std::vector<Id> &merged = p.listenersOf(p.creates[acceptorAccept]);
  EXPECT_TRUE(llvm::any_of(merged, [&](Id l) { return p.creates[l].family == facts::Family::Inet; })) << f.dump;
  Id acceptor = p.sites[p.creates[acceptorAccept].site].function;
  EXPECT_EQ(p.programsReaching(acceptor), std::optional<std::vector<Id>>({mainOf("daemon.c")}));
  EXPECT_EQ(p.programsReaching(p.functionByKey("c:tcp.c@F@on_tcp")), std::optional<std::vector<Id>>({mainOf("tcp.c")}));
  // Seen from the daemon, the only program that runs the acceptor: its own listener (the link
  // may hold it as one create per calling context).
  std::vector<llvm::ArrayRef<Id>> views = p.listenerViewsOf(acceptorAccept);
  ASSERT_EQ(views.size(), 1u) << f.dump;
  ASSERT_FALSE(views.front().empty());
  EXPECT_EQ(views.front().size(), merged.size() - 1) << f.dump;
  for (Id l : views.front())
    EXPECT_EQ(p.creates[l].family, facts::Family::Unix) << f.dump;
}

// A function only a library's exported API reaches (no main() in the database calls it) may run
// in any program: no view leaves a listener out.
TEST(Link, ALibraryWithoutProgramsKeepsEveryListener) {
  Linked f = one("struct loop { int fd[4]; void (*fn[4])(int); int n; };"
                 "static void add(struct loop *l, int fd, void (*fn)(int)) { l->fd[l->n] = fd; l->fn[l->n++] = fn; }"
                 "void run(struct loop *l) { for (int i = 0; i < l->n; i++) l->fn[i](l->fd[i]); }"
                 "static void acceptor(int fd) { close(accept(fd, 0, 0)); }"
                 "void serve_unix(struct loop *l) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); add(l, fd, acceptor); }"
                 "void serve_tcp(struct loop *l) { int fd = socket(AF_INET, SOCK_STREAM, 0); listen(fd, 1); add(l, fd, acceptor); }");
  const Program &p = f.p();
  for (Id c = 0; c < p.creates.size(); ++c)
    if (p.creates[c].how == facts::CreateHow::Accept) {
      EXPECT_FALSE(p.programsReaching(p.sites[p.creates[c].site].function).has_value());
      std::vector<llvm::ArrayRef<Id>> views = p.listenerViewsOf(c);
      ASSERT_EQ(views.size(), 1u) << f.dump;
      EXPECT_EQ(views.front().size(), 2u) << f.dump;
    }
}

TEST(Link, StructsOfOneNameInTwoSourceFilesStayApart) {
  // Two libraries each define their own opaque struct monitor in a .c file.
  Linked f = link({{"legacy.c", "struct monitor { int sock; };"
                                "void legacy_open(struct monitor *m) { m->sock = socket(AF_UNIX, SOCK_DGRAM, 0); }"},
                   {"netlink.c", "struct monitor { int sock; };"
                                 "void nl_open(struct monitor *m) { m->sock = socket(AF_NETLINK, SOCK_RAW, 0); }"
                                 "void nl_enable(struct monitor *m) { int on = 1; setsockopt(m->sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"}});
  const Program &p = f.p();
  std::vector<Id> origins = p.originsOf(firstOption(p));
  ASSERT_EQ(origins.size(), 1u) << f.dump;
  EXPECT_EQ(p.creates[origins[0]].family, facts::Family::Netlink) << f.dump;
}

TEST(Link, AFunctionDefinedInTwoFilesIsTwoFunctions) {
  // Two programs of one database, each with its own handle(): each call reaches its own.
  Linked f = link({{"a.c", "void handle(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                           "void run_a(void) { handle(socket(AF_INET, SOCK_STREAM, 0)); }"},
                   {"b.c", "void handle(int fd) { listen(fd, 1); }"
                           "void run_b(void) { handle(socket(AF_UNIX, SOCK_STREAM, 0)); }"},
                   {"c.c", "void handle(int fd); void run_c(void) { handle(socket(AF_NETLINK, SOCK_RAW, 0)); }"}});
  const Program &p = f.p();
  auto families = [&](Id place) {
    std::set<facts::Family> out;
    for (Id o : p.originsOf(place))
      out.insert(p.creates[o].family);
    return out;
  };
  // A call from a file without a definition may reach either.
  EXPECT_EQ(families(firstOption(p)), (std::set<facts::Family>{facts::Family::Inet, facts::Family::Netlink})) << f.dump;
  EXPECT_EQ(families(p.lifecycle[0].place), (std::set<facts::Family>{facts::Family::Unix, facts::Family::Netlink})) << f.dump;
}

TEST(Link, UnitsSeenTwiceCountOnce) {
  facts::Unit unit = extractUnit({"a.c", "void a(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); }"}, {});
  std::unique_ptr<Program> p = Program::link({&unit, &unit});
  EXPECT_EQ(p->creates.size(), 1u);
  EXPECT_EQ(p->lifecycle.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// The facts file

TEST(FactsIO, RoundTripKeepsEveryFact) {
  facts::Unit unit = extractUnit({"a.c", std::string(kRecvPrefix) +
                                             "return ((struct ucred *)CMSG_DATA(CMSG_FIRSTHDR(&m)))->uid; }"
                                             "void f(void) { int l = socket(AF_UNIX, SOCK_STREAM, 0); int on = 1;"
                                             "listen(l, 1); setsockopt(l, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); recv_creds(accept(l, 0, 0)); }"},
                                 {});
  std::string text = facts::writeUnit(unit);
  llvm::Expected<facts::Unit> back = facts::readUnit(text);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(facts::writeUnit(*back), text);
  std::unique_ptr<Program> a = Program::link({&unit}), b = Program::link({&*back});
  EXPECT_EQ(a->dump(), b->dump());
}

TEST(Extract, SyscallSendmsgIsASendWithItsFlags) {
  // syscall(SYS_sendmsg, ...) is a sendmsg() one argument later; MSG_DONTWAIT and a function that
  // leaves on EAGAIN are facts of the send, kept by the facts file.
  facts::Unit unit = extractUnit(
      {"a.c", "#include <sys/syscall.h>\n"
              "void pass(int over, int fd) { char b[CMSG_SPACE(sizeof(int))]; struct msghdr m = {.msg_control = b,"
              " .msg_controllen = sizeof b}; struct cmsghdr *c = CMSG_FIRSTHDR(&m); c->cmsg_type = SCM_RIGHTS;"
              " memcpy(CMSG_DATA(c), &fd, sizeof fd);"
              " if (syscall(SYS_sendmsg, over, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) { if (errno == EAGAIN) return; } }"
              "void plain(int over, int fd) { char b[CMSG_SPACE(sizeof(int))]; struct msghdr m = {.msg_control = b,"
              " .msg_controllen = sizeof b}; struct cmsghdr *c = CMSG_FIRSTHDR(&m); c->cmsg_type = SCM_RIGHTS;"
              " memcpy(CMSG_DATA(c), &fd, sizeof fd); while (sendmsg(over, &m, 0) < 0 && errno == EAGAIN) ; }"},
      options({})); // the built-in model catalog says what syscall() stands for
  ASSERT_EQ(unit.sends.size(), 2u);
  EXPECT_TRUE(unit.sends[0].dontWait);
  EXPECT_TRUE(unit.sends[0].stopsOnEagain);
  EXPECT_EQ(unit.sites[unit.sends[0].site].text, "over");
  EXPECT_FALSE(unit.sends[1].dontWait);
  EXPECT_FALSE(unit.sends[1].stopsOnEagain); // retried on EAGAIN, never left
  std::string text = facts::writeUnit(unit);
  EXPECT_NE(text.find("\"dont_wait\":true"), std::string::npos) << text;
  EXPECT_NE(text.find("\"stops_on_eagain\":true"), std::string::npos) << text;
  llvm::Expected<facts::Unit> back = facts::readUnit(text);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(back->sends[0].dontWait && back->sends[0].stopsOnEagain);
  EXPECT_EQ(facts::writeUnit(*back), text);
  llvm::Expected<facts::Unit> decoded = facts::decodeUnit(facts::encodeUnit(unit));
  ASSERT_TRUE(static_cast<bool>(decoded)) << llvm::toString(decoded.takeError());
  EXPECT_EQ(facts::writeUnit(*decoded), text);
}

TEST(Link, QueuedFdsAndStructChannelsLeadToTheirCallers) {
  // put() stores its fd into the sender's array, flush() sends the array in a loop: put's fd
  // parameter is the queue; a struct argument names its fields for the caller (&s -> s.fd).
  Linked f = one("struct sender { int fd; int fds[64]; unsigned n; };"
                 "void put(struct sender *s, int fd) { s->fds[s->n++] = fd; }"
                 "void flush(struct sender *s) { for (unsigned i = 0; i < s->n; i++) {"
                 " char b[CMSG_SPACE(sizeof(int))]; struct msghdr m = {.msg_control = b, .msg_controllen = sizeof b};"
                 " struct cmsghdr *c = CMSG_FIRSTHDR(&m); c->cmsg_type = SCM_RIGHTS;"
                 " memcpy(CMSG_DATA(c), &s->fds[i], sizeof(int)); sendmsg(s->fd, &m, 0); } }"
                 "void run(int l) { struct sender s = {0}; for (;;) put(&s, accept(l, 0, 0)); flush(&s); }");
  const Program &p = f.p();
  ASSERT_EQ(p.payloads.size(), 1u);
  std::vector<Id> queues = p.queueParams(p.payloads[0].place, p.sites[p.sends[0].site].function);
  ASSERT_EQ(queues.size(), 1u) << f.dump;
  EXPECT_EQ(p.display(queues[0]), "param:put#1");
  std::vector<SendSite> sends = expandSends(p);
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_TRUE(sends[0].queued);
  ASSERT_EQ(sends[0].levels.size(), 2u);
  EXPECT_EQ(sends[0].levels[1].callee, "put");
  EXPECT_EQ(sends[0].payload[0].text, "accept(l, 0, 0)");
  bool named = false;
  for (const facts::Call &c : p.calls)
    if (p.functions[c.callee].name == "flush")
      named = c.args.size() == 1 && c.args[0].text == "&s" && c.args[0].var.find(":s@") != std::string::npos;
  EXPECT_TRUE(named) << f.dump;
}

TEST(Queries, EventChainReachesTheRegisteredCallback) {
  // on_ready() is registered with the event loop (a call passing the fd and the function);
  // helper() is called from it: its chain leads to the callback and the registration.
  Linked f = one("int loop_add(int fd, int (*cb)(int));"
                 "void helper(int fd) { listen(fd, 1); }"
                 "int on_ready(int fd) { helper(fd); return 0; }"
                 "void *start(void *arg) { helper((int)(long)arg); return 0; }"
                 "int main(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); loop_add(fd, on_ready); return 0; }");
  const Program &p = f.p();
  std::vector<Id> registrations = eventRegistrations(p);
  Id helper = p.functionByKey("c:@F@helper"), onReady = p.functionByKey("c:@F@on_ready");
  ASSERT_NE(helper, kNone);
  std::optional<EventChain> chain = eventChain(p, registrations, helper);
  ASSERT_TRUE(chain.has_value()) << f.dump;
  EXPECT_EQ(chain->callback, onReady);
  EXPECT_EQ(chain->functions, (std::vector<Id>{onReady, helper}));
  EXPECT_EQ(p.sites[chain->registration].line, p.sites[p.callbacks[0].site].line);
  EXPECT_FALSE(eventChain(p, registrations, p.functionByKey("c:@F@main")).has_value());
}

TEST(FactsIO, DamagedOrForeignFilesAreRefused) {
  facts::Unit unit = extractUnit({"a.c", "void f(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); listen(fd, 1); }"}, {});
  std::string text = facts::writeUnit(unit);
  auto refused = [](const std::string &t) {
    llvm::Expected<facts::Unit> u = facts::readUnit(t);
    if (u)
      return std::string();
    return llvm::toString(u.takeError());
  };
  EXPECT_NE(refused(text.substr(0, text.size() / 2)), "");
  std::string other = text;
  std::string current = "\"version\":" + std::to_string(facts::kFormatVersion);
  other.replace(other.find(current), current.size(), "\"version\":99");
  EXPECT_NE(refused(other).find("version 99"), std::string::npos);
  std::string badIndex = text;
  std::size_t at = badIndex.find("\"place\":");
  ASSERT_NE(at, std::string::npos);
  badIndex.replace(at, 9, "\"place\":9");
  badIndex.insert(at + 9, "999");
  EXPECT_NE(refused(badIndex).find("does not name an entry"), std::string::npos);
  EXPECT_NE(refused("{\"format\":\"something-else\"}"), "");
}

// ---------------------------------------------------------------------------------------------
// Sockets a service manager hands over: how the code asks, what the service files say

TEST(Extract, HandoverSaysWhichConfiguredSocket) {
  Linked f = one("int sd_listen_fds_with_names(int, char ***);\n#define SD_LISTEN_FDS_START 3\n"
                 "int android_get_control_socket(const char *);\n#define LOGDW \"logdw\"\n"
                 "static const char kd[] = \"kmsgd\";\n"
                 "void f(int i) { listen(SD_LISTEN_FDS_START + 1, 1); listen(4, 1);"
                 "listen(SD_LISTEN_FDS_START + i, 1);"
                 "listen(android_get_control_socket(LOGDW), 1); listen(android_get_control_socket(kd), 1); }");
  EXPECT_TRUE(f.has("create external const:4 line 15 handover listen-fd:1\n")) << f.dump;
  EXPECT_TRUE(f.has("create external const:listen-fds line 15 handover listen-fd:*\n")) << f.dump;
  EXPECT_TRUE(f.has("handover android:logdw\n")) << f.dump;
  EXPECT_TRUE(f.has("handover android:kmsgd\n")) << f.dump;
}

TEST(Extract, SocketPickedByItsNameAfterSdListenFdsWithNames) {
  Linked f = one("int sd_listen_fds_with_names(int, char ***);\n#define SD_LISTEN_FDS_START 3\n"
                 "int ctl = -1, metrics = -1;"
                 "void f(void) { char **names; int n = sd_listen_fds_with_names(1, &names);"
                 "for (int i = 0; i < n; i++) { int fd = SD_LISTEN_FDS_START + i;"
                 "if (strcmp(names[i], \"control\") == 0) ctl = fd;"
                 "else if (!strcmp(names[i], \"metrics\")) metrics = fd; }"
                 "listen(ctl, 1); listen(metrics, 1); }");
  EXPECT_TRUE(f.has("handover listen-fd:* name control\n")) << f.dump;
  EXPECT_TRUE(f.has("handover listen-fd:* name metrics\n")) << f.dump;
  // Each variable holds the fd of its name only, not every socket-activation fd.
  for (const facts::LifecycleEvent &e : f.p().lifecycle) {
    ASSERT_EQ(f.p().originsOf(e.place).size(), 1u) << f.dump;
    EXPECT_EQ(f.p().creates[f.p().originsOf(e.place).front()].handoverNames.size(), 1u);
  }
}

namespace {
// A scratch directory with these files (relative path -> content).
std::string writeTree(const std::map<std::string, std::string> &files) {
  std::string dir = afunix::test_support::scratchDirectory("service-files");
  for (const auto &[name, text] : files) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::ofstream(std::string(path)) << text;
  }
  return dir;
}

facts::Unit readService(const std::string &path) {
  facts::Unit unit;
  std::string error;
  EXPECT_TRUE(readServiceFile(path, unit, error)) << error;
  return unit;
}

// The file after the edit that enables SO_PASSCRED for `socket`.
std::string enabled(const facts::Unit &unit, const facts::ServiceSocket &socket) {
  const facts::Site &at = unit.sites[socket.enableAt];
  std::ifstream in(unit.files[at.file]);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.replace(at.offset, socket.enableLength, socket.enableText);
}
} // namespace

TEST(ServiceFiles, SocketUnitSocketsInFdOrder) {
  std::string dir = writeTree(
      {{"units/app.socket.in", "[Unit]\nDescription=x\n\n[Socket]\n# a comment\nListenStream=@rundir@/app.sock\n"
                               "ListenFIFO=/run/app.fifo\nListenDatagram=@app-abstract\n"
                               "ListenStream=[::]:8080\nListenNetlink=kobject-uevent 1\n"
                               "PassCredentials=@PASSCRED@\nAccept=no\n\n[Install]\nWantedBy=sockets.target\n"},
       {"units/app.service.in", "[Service]\nExecStart=-@bindir@/app --socket\n"}});
  facts::Unit unit = readService(dir + "/units/app.socket.in");
  ASSERT_EQ(unit.services.size(), 4u);
  const facts::ServiceSocket &stream = unit.services[0], &dgram = unit.services[1],
                             &inet = unit.services[2], &netlink = unit.services[3];
  EXPECT_EQ(stream.unit, "app.socket");
  EXPECT_EQ(stream.name, "app.socket"); // FileDescriptorName= defaults to the unit's name
  EXPECT_EQ(stream.index, 0);
  EXPECT_EQ(dgram.index, 2); // the FIFO is fd 4 though no socket
  EXPECT_EQ(stream.family, facts::Family::Unix);
  EXPECT_EQ(dgram.family, facts::Family::Unix);
  EXPECT_EQ(dgram.type, 2);
  EXPECT_EQ(inet.family, facts::Family::Inet6);
  EXPECT_EQ(netlink.family, facts::Family::Netlink);
  EXPECT_EQ(stream.passcred, facts::Tri::Maybe); // a template's value
  EXPECT_EQ(stream.programs, std::vector<std::string>{"app"});
  EXPECT_EQ(unit.sites[stream.site].line, 6u);
  EXPECT_EQ(unit.sites[stream.site].column, 14u);
  EXPECT_EQ(unit.sites[stream.site].text, "@rundir@/app.sock");
  EXPECT_NE(enabled(unit, stream).find("PassCredentials=yes\nAccept=no"), std::string::npos);
}

TEST(ServiceFiles, DropInsEmptyAssignmentsAndNames) {
  std::string dir = writeTree(
      {{"bus.socket", "[Socket]\nListenStream=/run/old.sock\nListenStream=\nListenStream=/run/bus.sock\n"
                      "FileDescriptorName=bus\nService=broker.service\nAccept=yes\nPassCredentials=yes"},
       {"bus.socket.d/10-off.conf", "[Socket]\nPassCredentials = no\n"},
       {"broker.service", "[Service]\nExecStart=/usr/bin/broker\n"}});
  facts::Unit unit = readService(dir + "/bus.socket");
  ASSERT_EQ(unit.services.size(), 1u); // the empty assignment reset the list
  const facts::ServiceSocket &bus = unit.services[0];
  EXPECT_EQ(bus.index, 0);
  EXPECT_EQ(bus.name, "bus");
  EXPECT_TRUE(bus.accept);
  EXPECT_EQ(bus.passcred, facts::Tri::False); // the drop-in wins
  EXPECT_EQ(bus.programs, std::vector<std::string>{"broker"});
  EXPECT_EQ(unit.files.size(), 2u);
  EXPECT_EQ(enabled(unit, bus), "[Socket]\nPassCredentials = yes\n");
}

TEST(ServiceFiles, AndroidInitSocketsOfServices) {
  std::string dir = writeTree(
      {{"logd.rc", "# init\nservice logd /system/bin/logd\n    socket logd stream 0666 logd logd\n"
                   "    socket logdw dgram+passcred 0222 logd logd\n    socket logdr seqpacket+listen 0666 logd logd\n"
                   "    user logd\n\non fs\n    socket notme dgram 0666\n"},
       {"sshd.rc", "#!/sbin/sh\ncase $1 in\nstart) /usr/sbin/sshd ;;\nesac\n"}});
  facts::Unit unit = readService(dir + "/logd.rc");
  ASSERT_EQ(unit.services.size(), 3u); // `on fs` ends the service: its socket line is no socket
  EXPECT_EQ(unit.services[0].name, "logd");
  EXPECT_EQ(unit.services[0].unit, "service logd");
  EXPECT_EQ(unit.services[0].passcred, facts::Tri::False);
  EXPECT_EQ(unit.services[1].passcred, facts::Tri::True);
  EXPECT_EQ(unit.services[1].type, 2);
  EXPECT_EQ(unit.services[2].type, 5);
  EXPECT_EQ(unit.services[0].programs, std::vector<std::string>{"logd"});
  EXPECT_NE(enabled(unit, unit.services[2]).find("socket logdr seqpacket+listen+passcred 0666"),
            std::string::npos);
  EXPECT_TRUE(readService(dir + "/sshd.rc").services.empty()); // a shell script named .rc
  facts::Unit missing;
  std::string error;
  EXPECT_FALSE(readServiceFile(dir + "/absent.socket", missing, error));
  EXPECT_NE(error.find("absent.socket"), std::string::npos);
}

TEST(ServiceFiles, MatchedByHandoverNameAndProgram) {
  std::string dir = writeTree({{"a.socket", "[Socket]\nListenStream=/run/a\nFileDescriptorName=ctl\n"},
                               {"a.service", "[Service]\nExecStart=/usr/bin/a\n"},
                               {"b.socket", "[Socket]\nListenStream=/run/b\nFileDescriptorName=ctl\nPassCredentials=yes\n"},
                               {"b.service", "[Service]\nExecStart=/usr/bin/b\n"}});
  facts::Unit code = extractUnit({"a.c", "int sd_listen_fds_with_names(int, char ***);\n#define SD_LISTEN_FDS_START 3\n"
                                         "void f(void) { char **names; int fd = -1; int n = sd_listen_fds_with_names(1, &names);"
                                         "for (int i = 0; i < n; i++) if (strcmp(names[i], \"ctl\") == 0) fd = SD_LISTEN_FDS_START + i;"
                                         "listen(fd, 1); }"},
                                 {});
  facts::Unit a = readService(dir + "/a.socket"), b = readService(dir + "/b.socket");
  auto verdict = [&](const std::string &target) {
    code.target = target;
    std::unique_ptr<Program> p = Program::link({&code, &a, &b});
    Id origin = p->originsOf(p->lifecycle.front().place).front();
    return handoverOf(*p, origin);
  };
  EXPECT_EQ(verdict("").sockets.size(), 2u); // both are named ctl: they disagree
  EXPECT_EQ(verdict("").passcred, facts::Tri::Maybe);
  EXPECT_EQ(verdict("a").passcred, facts::Tri::False); // built into a: a.socket's
  EXPECT_EQ(verdict("b").passcred, facts::Tri::True);
  EXPECT_EQ(verdict("libshared").sockets.size(), 2u); // a library: either
}

TEST(FactsIO, ServiceSocketsAndHandoverRoundTrip) {
  std::string dir = writeTree({{"x.socket", "[Socket]\nListenDatagram=/run/x\nPassCredentials=no\n"}});
  facts::Unit unit = readService(dir + "/x.socket");
  facts::Unit code = extractUnit({"x.c", "int android_get_control_socket(const char *);"
                                         "void f(void) { listen(android_get_control_socket(\"x\"), 1); }"}, {});
  code.target = "xd";
  for (const facts::Unit *u : {&unit, &code}) {
    std::string text = facts::writeUnit(*u);
    llvm::Expected<facts::Unit> back = facts::readUnit(text);
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(facts::writeUnit(*back), text);
  }
  EXPECT_NE(facts::writeUnit(unit).find("\"services\""), std::string::npos);
  EXPECT_NE(facts::writeUnit(code).find("\"handover\":\"android:x\""), std::string::npos);
  EXPECT_NE(facts::writeUnit(code).find("\"target\":\"xd\""), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Paired endpoints: addresses, clients, what a client does first

TEST(Extract, AddressesOfBindConnectAndSendto) {
  Linked f = one("#include <stdio.h>\n#define PATH \"/run/a.sock\"\n"
                 "void lit(int fd) { struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = PATH};"
                 "  bind(fd, (struct sockaddr *)&a, sizeof a); }\n"
                 "void cpy(int fd) { struct sockaddr_un a = {0}; strncpy(a.sun_path, \"/run/b\", 107);"
                 "  connect(fd, (struct sockaddr *)&a, sizeof a); }\n"
                 "void abs1(int fd) { struct sockaddr_un a = {0}; strcpy(a.sun_path + 1, \"c\");"
                 "  bind(fd, (struct sockaddr *)&a, sizeof a); }\n"
                 "void abs2(int fd) { struct sockaddr_un a = {0}; memcpy(a.sun_path, \"\\0d\", 2);"
                 "  sendto(fd, \"x\", 1, 0, (struct sockaddr *)&a, sizeof a); }\n"
                 "void fmt(int fd, const char *p) { struct sockaddr_un a = {0};"
                 "  snprintf(a.sun_path, sizeof a.sun_path, \"%s\", p); connect(fd, (struct sockaddr *)&a, sizeof a); }\n"
                 "void two(int fd, int x) { struct sockaddr_un a = {0};"
                 "  if (x) strcpy(a.sun_path, \"/e\"); else strcpy(a.sun_path, \"/f\");"
                 "  bind(fd, (struct sockaddr *)&a, sizeof a); }\n"
                 "void caller(void) { int fd = socket(AF_UNIX, SOCK_STREAM, 0); fmt(fd, \"/run/g\"); printf(\"%d\\n\", fd); }\n");
  EXPECT_TRUE(f.has("bind param:lit#0 line 12 address /run/a.sock\n")) << f.dump;
  EXPECT_TRUE(f.has("connect param:cpy#0 line 13 address /run/b\n")) << f.dump;
  EXPECT_TRUE(f.has("bind param:abs1#0 line 14 address @c\n")) << f.dump;
  EXPECT_TRUE(f.has("write param:abs2#0 line 15 address @d\n")) << f.dump;
  EXPECT_TRUE(f.has("connect param:fmt#0 line 16 address_param 1\n")) << f.dump;
  EXPECT_TRUE(f.has("call fmt line 18 value:local:caller:fd -\"/run/g\"")) << f.dump;
  // Two ways to fill it in: not known.
  EXPECT_TRUE(f.has("bind param:two#0 line 17\n")) << f.dump;
}

// ---------------------------------------------------------------------------------------------
// Context: what one caller hands a function does not come back to another

TEST(Link, PassThroughFunctionGivesEachCallerItsOwnSocket) {
  Linked f = one("#include <fcntl.h>\n"
                 "static int above_stdio(int fd) { if (fd > 2) return fd; int copy = fcntl(fd, F_DUPFD, 3); return copy; }"
                 "void a(void) { int s = above_stdio(socket(AF_UNIX, SOCK_STREAM, 0)); listen(s, 1); }"
                 "void b(void) { int p[2]; pipe(p); int r = above_stdio(p[0]); listen(r, 1); }");
  ASSERT_EQ(f.p().lifecycle.size(), 2u) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[1].place), std::vector<std::string>{"not-socket:pipe"}) << f.dump;
}

TEST(Link, FunctionReturningItsOwnSocketStillReachesEveryCaller) {
  // Not a pass-through: it may also return a socket it makes.
  Linked f = one("static int get(int fd) { if (fd >= 0) return fd; return socket(AF_UNIX, SOCK_STREAM, 0); }"
                 "void a(int x) { listen(get(x), 1); }");
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place),
            (std::vector<std::string>{"socket:socket", "parameter:"})) << f.dump;
}

TEST(Link, APointerConvertedFromAnotherRecordReadsThePerRecordPlace) {
  // container_of: c points to the conn's link, read as a conn. A path of conn's fields below a
  // struct list is no place any object has: it is f:conn::fd, what every conn's fd holds, and a
  // file's fd found the same way stays apart.
  Linked f = one("#include <stddef.h>\n#include <stdlib.h>\n#include <fcntl.h>\n"
                 "#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))\n"
                 "struct list { struct list *next; };"
                 "struct conn { int fd; struct list link; }; struct file { int fd; struct list link; };"
                 "static struct list conns, files;"
                 "void add(const char *path) {"
                 "  struct conn *c = malloc(sizeof *c); c->fd = socket(AF_UNIX, SOCK_STREAM, 0); conns.next = &c->link;"
                 "  struct file *g = malloc(sizeof *g); g->fd = open(path, O_RDONLY); files.next = &g->link; }"
                 "void use(void) {"
                 "  struct conn *c = container_of(conns.next, struct conn, link); listen(c->fd, 1);"
                 "  struct file *g = container_of(files.next, struct file, link); listen(g->fd, 1); }");
  ASSERT_EQ(f.p().lifecycle.size(), 2u) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socket:socket"}) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[1].place), std::vector<std::string>{"not-socket:open"}) << f.dump;
}

TEST(Link, APointerToTooManyObjectsPointsToAnyOfItsRecord) {
  // A generated worst case: 150 records, each object and its embedded parts stored in one table of
  // void pointers that every function reads back (nginx's pools and contexts): every pointer read
  // from the table may point to 300 allocations. The sets stay bounded, and a socket stored into one
  // record's field is still what the field read through the table holds.
  std::string code = "#include <stdlib.h>\nvoid *table[64];";
  const int records = 150;
  for (int k = 0; k < records; ++k) {
    std::string r = std::to_string(k);
    code += "struct a" + r + " { int fd; }; struct b" + r + " { struct a" + r + " a; int fd; };"
            "struct r" + r + " { int fd; struct b" + r + " b; };"
            "void make" + r + "(int i) { struct r" + r + " *o = malloc(sizeof *o);"
            " o->fd = socket(AF_UNIX, SOCK_STREAM, 0);"
            " table[i] = o; table[i + 1] = &o->b; table[i + 2] = &o->b.a; table[i + 3] = malloc(8); }"
            "void walk" + r + "(int i) { struct r" + r + " *o = table[i]; listen(o->fd, 1); }";
  }
  Linked f = one(code);
  EXPECT_GT(f.p().widenedPointerSets, 0u);
  for (Id p = 0; p < f.p().places.size(); ++p)
    EXPECT_LE(f.p().objectsAt(p).size(), Program::kMaxObjectsPerPointer) << f.p().places[p].key;
  ASSERT_EQ(f.p().lifecycle.size(), static_cast<std::size_t>(records));
  for (const facts::LifecycleEvent &e : f.p().lifecycle)
    EXPECT_EQ(originsAt(f.p(), e.place), std::vector<std::string>{"socket:socket"}) << f.p().places[e.place].key;
}

TEST(Link, HelpersCallingWhatTheyAreHandedStayWithinTheCloneBudget) {
  // A generated worst case for the clones of helpers that call the function they are handed: each
  // helper calls it and hands it, with its socket, three times to the next, 12 deep, and 200
  // functions (the most callers a cloned function may have) each call the outermost with a socket
  // and a function of their own: 3^8 nested clones (the depth bound) from each call, far past the
  // budget. Cloning stops there; past it a helper is one function for its callers again, so each
  // function still reaches its own socket, and the places stay at the budget (400,000).
  const int depth = 12, callers = 200;
  std::string code = "static void h" + std::to_string(depth) + "(int fd, void (*fn)(int)) { fn(fd); }";
  for (int d = depth - 1; d >= 0; --d) {
    std::string next = "h" + std::to_string(d + 1);
    code += "static void h" + std::to_string(d) + "(int fd, void (*fn)(int)) { fn(fd); " + next + "(fd, fn); " +
            next + "(fd, fn); " + next + "(fd, fn); }";
  }
  for (int k = 0; k < callers; ++k) {
    std::string n = std::to_string(k);
    code += "static void use" + n + "(int fd) { listen(fd, " + n + "); }"
            "void call" + n + "(void) { int s = socket(AF_UNIX, SOCK_STREAM, 0); h0(s, use" + n + "); }";
  }
  Linked f = one(code);
  ASSERT_EQ(f.p().lifecycle.size(), static_cast<std::size_t>(callers));
  for (const facts::LifecycleEvent &e : f.p().lifecycle)
    EXPECT_FALSE(f.p().originsOf(e.place).empty()) << f.p().places[e.place].key;
  EXPECT_GT(f.p().places.size(), 390'000u); // the budget is spent
  EXPECT_LT(f.p().places.size(), 410'000u); // and not overrun
}

TEST(Link, SocketWrappersAreMadePerCallAndSeenFromTheirOwnCalls) {
  // Helpers that listen on, or enable the option on, the socket of the server they are handed:
  // each call gets a copy on that server's socket only, and a helper one of them calls once
  // (set()) is copied inside each of its copies. The copies' facts are seen from their own calls.
  Linked f = one("struct server { int fd; };"
                 "static void open_server(struct server *s) { s->fd = socket(AF_UNIX, SOCK_STREAM, 0); }"
                 "static void listen_server(struct server *s) { listen(s->fd, 1); }"
                 "static void set(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }"
                 "static void enable_server(struct server *s) { set(s->fd); }"
                 "void f(void) { struct server a, b; open_server(&a); open_server(&b);"
                 "  listen_server(&a); listen_server(&b); enable_server(&b); enable_server(&a); }");
  const Program &p = f.p();
  std::set<Id> listened;
  for (const facts::LifecycleEvent &e : p.lifecycle)
    if (e.kind == facts::Lifecycle::Listen) {
      std::vector<Id> origins = p.originsOf(e.place);
      EXPECT_LE(origins.size(), 1u) << p.places[e.place].key << f.dump; // one server's, or none (the original's)
      if (!origins.empty()) {
        listened.insert(origins.front());
        ASSERT_EQ(p.cloneCalls(e.place).size(), 1u) << p.places[e.place].key;
        EXPECT_EQ(p.sites[p.cloneCalls(e.place).front()].function, p.functionByKey("c:@F@f"));
      }
    }
  EXPECT_EQ(listened.size(), 2u) << f.dump; // two sockets, one per call of open_server()
  std::set<Id> enabled;
  for (const facts::OptionSet &o : p.options) {
    std::vector<Id> origins = p.originsOf(o.place);
    EXPECT_LE(origins.size(), 1u) << p.places[o.place].key << f.dump;
    if (origins.empty())
      continue;
    enabled.insert(origins.front());
    // set() copied inside enable_server()'s copy: the call in f(), then the call of set().
    EXPECT_EQ(p.cloneCalls(o.place).size(), 2u) << p.places[o.place].key;
  }
  EXPECT_EQ(enabled, listened) << f.dump;
}

TEST(Link, SocketWrappersStayWithinTheCloneBudget) {
  // A generated worst case for the clones of wrappers: each wrapper hands its socket three times to
  // the next, 12 deep, the innermost enables the option, and 200 functions call the outermost with
  // a socket of their own: 3^8 nested clones from each call (the depth bound), far past the budget.
  // Cloning stops there; every socket still reaches the option, and the places stay at the budget.
  const int depth = 12, callers = 200;
  std::string code = "static void w" + std::to_string(depth) +
                     "(int fd) { int on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }";
  for (int d = depth - 1; d >= 0; --d) {
    std::string next = "w" + std::to_string(d + 1);
    code += "static void w" + std::to_string(d) + "(int fd) { " + next + "(fd); " + next + "(fd); " + next + "(fd); }";
  }
  for (int k = 0; k < callers; ++k)
    code += "void call" + std::to_string(k) + "(void) { int s = socket(AF_UNIX, SOCK_DGRAM, 0); w0(s); }";
  Linked f = one(code);
  std::set<Id> reached;
  for (const facts::OptionSet &o : f.p().options)
    for (Id origin : f.p().originsOf(o.place))
      reached.insert(origin);
  EXPECT_EQ(reached.size(), static_cast<std::size_t>(callers));
  EXPECT_GT(f.p().places.size(), 390'000u); // the budget is spent
  EXPECT_LT(f.p().places.size(), 410'000u); // and not overrun
}

TEST(Link, ObjectsPerEntryTellsApartWhatEachCallHandsOver) {
  // One reader for every source, reached through a holder each call of dispatch() fills with a
  // source of its own (h->data, then a local): the reader's pointer holds both sources, and each
  // call hands it one. A source reached through a holder from outside is not judged.
  Linked f = one("struct source { int fd; }; struct holder { void *data; };"
                 "int use(struct source *s) { return s->fd; }"
                 "int dispatch(struct holder *h) { struct source *s = h->data; return use(s); }"
                 "int outside(struct holder *h) { return dispatch(h); }"
                 "void f(void) { struct source a, b; struct holder ha = {&a}, hb = {&b};\n"
                 "  dispatch(&ha);\n"
                 "  dispatch(&hb); }");
  const Program &p = f.p();
  Id reader = p.placeByKey("p:c:@F@use#0");
  ASSERT_NE(reader, kNone) << f.dump;
  EXPECT_EQ(p.objectsAt(reader).size(), 2u) << f.dump;
  std::vector<Program::ObjectEntry> entries = p.objectsPerEntry(reader);
  std::map<std::uint32_t, std::vector<std::string>> byLine;
  for (const Program::ObjectEntry &e : entries)
    for (Id object : e.objects)
      byLine[p.sites[e.site].line].push_back(p.display(object));
  const auto prelude = static_cast<std::uint32_t>(llvm::StringRef(kPrelude).count('\n'));
  std::map<std::uint32_t, std::vector<std::string>> expected{{prelude + 2, {"local:f:a"}},
                                                              {prelude + 3, {"local:f:b"}}};
  EXPECT_EQ(byLine, expected) << f.dump;
}

TEST(Link, ObjectsPerEntryStaysWithinItsBound) {
  // A generated worst case: 200 callers hand objects of their own down 12 levels of functions that
  // each call the next three times: 3^12 ways up from the innermost, 3^6 within the depth bound.
  // The walk stops at its bound on places asked, with entries of objects the pointer holds.
  const int depth = 12, callers = 200;
  std::string code = "struct source { int fd; }; int r" + std::to_string(depth) + "(struct source *s) { return s->fd; }";
  for (int d = depth - 1; d >= 0; --d) {
    std::string next = "r" + std::to_string(d + 1);
    code += "int r" + std::to_string(d) + "(struct source *s) { return " + next + "(s) + " + next + "(s) + " + next +
            "(s); }";
  }
  for (int k = 0; k < callers; ++k)
    code += "static struct source o" + std::to_string(k) + "; int call" + std::to_string(k) + "(void) { return r0(&o" +
            std::to_string(k) + "); }";
  Linked f = one(code);
  const Program &p = f.p();
  Id reader = p.placeByKey("p:c:@F@r" + std::to_string(depth) + "#0");
  ASSERT_NE(reader, kNone);
  std::vector<Id> all = p.objectsAt(reader);
  EXPECT_EQ(all.size(), static_cast<std::size_t>(callers));
  std::size_t asked = 0;
  std::vector<Program::ObjectEntry> entries = p.objectsPerEntry(reader, &asked);
  EXPECT_EQ(asked, Program::kMaxEntryVisits); // the walk is cut there
  EXPECT_LE(entries.size(), Program::kMaxEntryVisits);
  for (const Program::ObjectEntry &e : entries)
    for (Id object : e.objects)
      EXPECT_TRUE(llvm::is_contained(all, object)) << p.display(object);
}

TEST(Link, WritesThroughAPointerParameterReachOnlyTheCallersItWritesFor) {
  Linked f = one("static void make_pair(int p[2]) { socketpair(AF_UNIX, SOCK_STREAM, 0, p); }"
                 "static void forget_pair(int p[2]) { p[0] = p[1] = -1; }"
                 "static void keep(int *p, int fd) { *p = fd; }"
                 "void a(void) { int x[2]; make_pair(x); listen(x[0], 1); forget_pair(x); }"
                 "void b(void) { int y[2]; pipe(y); forget_pair(y); listen(y[0], 1); }"
                 "void c(void) { int z; keep(&z, socket(AF_UNIX, SOCK_DGRAM, 0)); listen(z, 1); }");
  ASSERT_EQ(f.p().lifecycle.size(), 3u) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[0].place), std::vector<std::string>{"socketpair:socketpair"}) << f.dump;
  // forget_pair() reads what a() passed it, but writes back only -1: b()'s array keeps its pipe.
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[1].place), std::vector<std::string>{"not-socket:pipe"}) << f.dump;
  EXPECT_EQ(originsAt(f.p(), f.p().lifecycle[2].place), std::vector<std::string>{"socket:socket"}) << f.dump;
}

TEST(ProjectOptionsParse, SyscallWrappersAddToTheCatalogAndMalformedOnesAreNamed) {
  std::vector<std::string> errors;
  ProjectOptions parsed = ProjectOptions::parse(
      [](llvm::StringRef name) -> std::optional<std::string> {
        if (name == "SyscallWrappers")
          return "qb_sendmsg:sendmsg:0; sys_rcv:recv:0; sc:sendmsg:0:SYS_sendmsg; ok_recv:recvmsg:2:NR_a|NR_b";
        return std::nullopt;
      },
      [&](const std::string &error) { errors.push_back(error); });
  // The catalog's syscall() entries first, then the project's two good ones.
  std::vector<std::string> names;
  for (const SyscallWrapper &w : parsed.syscallWrappers)
    names.push_back(w.name + ":" + w.call + ":" + std::to_string(w.firstArg) + (w.builtin ? ":builtin" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"syscall:sendmsg:1:builtin", "syscall:recvmsg:1:builtin",
                                             "qb_sendmsg:sendmsg:0", "ok_recv:recvmsg:2"}));
  EXPECT_EQ(parsed.syscallWrappers.back().numbers, (std::vector<std::string>{"NR_a", "NR_b"}));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("'sys_rcv:recv:0'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("'sc:sendmsg:0:SYS_sendmsg'"), std::string::npos) << errors[1];
  // Only the project's entries tell two runs' options apart.
  EXPECT_NE(parsed.extractionFingerprint().find("s:qb_sendmsg:sendmsg:0"), std::string::npos);
  EXPECT_EQ(parsed.extractionFingerprint().find("s:syscall"), std::string::npos);
}

TEST(ProjectOptionsParse, ReceiversAndChannelViewsAddToTheCatalog) {
  std::vector<std::string> errors;
  ProjectOptions parsed = ProjectOptions::parse(
      [](llvm::StringRef name) -> std::optional<std::string> {
        if (name == "Receivers")
          return "chan_read:1; no_position; ns::read:0; far:65";
        if (name == "ChannelViews")
          return "chan_stream:0";
        return std::nullopt;
      },
      [&](const std::string &error) { errors.push_back(error); });
  // models/receivers.yaml's GIO entries, then the project's.
  ASSERT_TRUE(parsed.receivers.count("g_input_stream_read"));
  EXPECT_TRUE(parsed.receivers.lookup("g_input_stream_read").builtin);
  ASSERT_TRUE(parsed.receivers.count("chan_read"));
  EXPECT_EQ(parsed.receivers.lookup("chan_read").socketArg, 1u);
  EXPECT_FALSE(parsed.receivers.lookup("chan_read").builtin);
  EXPECT_TRUE(parsed.channelViews.lookup("g_type_check_instance_cast").builtin);
  EXPECT_FALSE(parsed.channelViews.lookup("chan_stream").builtin);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("'no_position'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("'ns::read:0'"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("'far:65'"), std::string::npos) << errors[2];
  EXPECT_NE(parsed.extractionFingerprint().find("v:chan_read:1"), std::string::npos);
  EXPECT_NE(parsed.extractionFingerprint().find("x:chan_stream:0"), std::string::npos);
  EXPECT_EQ(parsed.extractionFingerprint().find("g_input_stream_read"), std::string::npos);
}

TEST(ProjectOptionsParse, FdSendersAndMalformedOnesAreNamed) {
  std::vector<std::string> errors;
  ProjectOptions parsed = ProjectOptions::parse(
      [](llvm::StringRef name) -> std::optional<std::string> {
        if (name == "FdSenders")
          return "ancil_send_fds:0:1:2; ancil_send_fd:0:1; same:1:1; short:0; "
                 "android::base::SendFileDescriptors:0:3...; counted:0:1...:2; late:2:1...; five:0:1:2:3; "
                 "box_send:0:2:holder=Box; box_count:0:2:3:holder=Box; box_many:0:2...:holder=Box; "
                 "box_bad:0:2:holder=a b";
        return std::nullopt;
      },
      [&](const std::string &error) { errors.push_back(error); });
  // The catalog's entries come first (models/fd-senders.yaml), then the project's.
  std::vector<FdSender> project;
  for (const FdSender &f : parsed.fdSenders)
    if (!f.builtin)
      project.push_back(f);
  EXPECT_EQ(parsed.fdSenders.size() - project.size(), 4u);
  ASSERT_EQ(project.size(), 4u);
  EXPECT_EQ(project[0].name, "ancil_send_fds");
  EXPECT_EQ(project[0].countArg, 2);
  EXPECT_FALSE(project[0].variadic);
  EXPECT_EQ(project[1].fdsArg, 1u);
  EXPECT_EQ(project[1].countArg, -1);
  // A qualified name keeps its `::`; the positions are read from the end.
  EXPECT_EQ(project[2].name, "android::base::SendFileDescriptors");
  EXPECT_EQ(project[2].socketArg, 0u);
  EXPECT_EQ(project[2].fdsArg, 3u);
  EXPECT_TRUE(project[2].variadic);
  EXPECT_TRUE(project[2].holder.empty());
  // A holder's fd: the positions before it, the holder's name after.
  EXPECT_EQ(project[3].name, "box_send");
  EXPECT_EQ(project[3].fdsArg, 2u);
  EXPECT_EQ(project[3].countArg, -1);
  EXPECT_EQ(project[3].holder, "Box");
  ASSERT_EQ(errors.size(), 8u);
  EXPECT_NE(errors[0].find("'same:1:1'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("'short:0'"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("'counted:0:1...:2'"), std::string::npos) << errors[2]; // variadic fds have no count
  EXPECT_NE(errors[3].find("'late:2:1...'"), std::string::npos) << errors[3];     // the socket after them
  EXPECT_NE(errors[4].find("'five:0:1:2:3'"), std::string::npos) << errors[4];    // one position too many
  EXPECT_NE(errors[5].find("'box_count:0:2:3:holder=Box'"), std::string::npos) << errors[5]; // a holder keeps one
  EXPECT_NE(errors[6].find("'box_many:0:2...:holder=Box'"), std::string::npos) << errors[6];
  EXPECT_NE(errors[7].find("'box_bad:0:2:holder=a b'"), std::string::npos) << errors[7];
  // A project's entries change what is extracted: the facts cache keys on them.
  EXPECT_NE(parsed.extractionFingerprint().find("d:ancil_send_fds:0:1:2"), std::string::npos);
  EXPECT_NE(parsed.extractionFingerprint().find("d:android::base::SendFileDescriptors:0:3...:-1:"), std::string::npos);
  EXPECT_NE(parsed.extractionFingerprint().find("d:box_send:0:2:-1:Box"), std::string::npos);
}

TEST(ProjectOptionsParse, ContainersAddToTheCatalogAndMalformedOnesAreNamed) {
  std::vector<std::string> errors;
  ProjectOptions parsed = ProjectOptions::parse(
      [](llvm::StringRef name) -> std::optional<std::string> {
        if (name == "Containers")
          return "ipc::FdList|Add|Fds; Batch||raw+data; QList|append+prepend; 9lives; a|b|c|d; "
                 "bad|add-one; ns::|x";
        return std::nullopt;
      },
      [&](const std::string &error) { errors.push_back(error); });
  // The catalog's entries come first (models/containers.yaml), then the project's.
  std::vector<ContainerClass> project;
  for (const ContainerClass &c : parsed.containers)
    if (!c.builtin)
      project.push_back(c);
  EXPECT_GT(parsed.containers.size(), project.size());
  EXPECT_TRUE(llvm::any_of(parsed.containers, [](const ContainerClass &c) {
    return c.builtin && c.name == "llvm::SmallVectorImpl";
  }));
  ASSERT_EQ(project.size(), 3u);
  EXPECT_EQ(project[0].name, "ipc::FdList");
  EXPECT_EQ(project[0].adds, std::vector<std::string>{"Add"});
  EXPECT_EQ(project[0].data, std::vector<std::string>{"Fds"});
  EXPECT_TRUE(project[1].adds.empty()); // an empty field: no further adding method
  EXPECT_EQ(project[1].data, (std::vector<std::string>{"raw", "data"}));
  EXPECT_EQ(project[2].adds, (std::vector<std::string>{"append", "prepend"}));
  EXPECT_TRUE(project[2].data.empty());
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_NE(errors[0].find("'9lives'"), std::string::npos) << errors[0];      // not a C++ name
  EXPECT_NE(errors[1].find("'a|b|c|d'"), std::string::npos) << errors[1];     // one field too many
  EXPECT_NE(errors[2].find("'bad|add-one'"), std::string::npos) << errors[2]; // not a method name
  EXPECT_NE(errors[3].find("'ns::|x'"), std::string::npos) << errors[3];
  // A project's entries change what is extracted: the facts cache keys on them.
  EXPECT_NE(parsed.extractionFingerprint().find("c:ipc::FdList|Add+|Fds+"), std::string::npos);
  EXPECT_EQ(parsed.extractionFingerprint().find("c:llvm::SmallVectorImpl"), std::string::npos);
}

TEST(ProjectOptionsParse, MessageQueuesAddToTheCatalogAndMalformedOnesAreNamed) {
  std::vector<std::string> errors;
  ProjectOptions parsed = ProjectOptions::parse(
      [](llvm::StringRef name) -> std::optional<std::string> {
        if (name == "MessageQueues")
          return "msgq_put:1:fd:nfd; msgq_bad:x:fd:nfd; msgq_short:1:fd";
        return std::nullopt;
      },
      [&](const std::string &error) { errors.push_back(error); });
  std::vector<std::string> names;
  for (const MessageQueue &q : parsed.messageQueues)
    names.push_back(q.name + ":" + std::to_string(q.messageArg) + ":" + q.fds + ":" + q.count +
                    (q.builtin ? ":builtin" : ""));
  // The catalog's skalibs entries first (models/queues.yaml), then the project's good one.
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names.front(), "unixmessage_put:1:fds:nfds:builtin");
  EXPECT_EQ(names.back(), "msgq_put:1:fd:nfd");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("'msgq_bad:x:fd:nfd'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("'msgq_short:1:fd'"), std::string::npos) << errors[1];
  EXPECT_NE(parsed.extractionFingerprint().find("q:msgq_put:1:fd:nfd"), std::string::npos);
  EXPECT_EQ(parsed.extractionFingerprint().find("q:unixmessage"), std::string::npos);
}

// The prefilter's names (Relevance.h): what another file must name to be able to matter.
TEST(NamesThatMatter, FunctionsFieldsAndGlobalsTheSocketsGoThrough) {
  Linked l = one(R"(
struct conn { int fd; int len; };
struct conn *current;
int shared_sock;
int log_line(const char *text, int value);
int consume(int fd);
int make_listener(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(fd, 5);
  return fd;
}
void store(struct conn *c) { c->fd = make_listener(); c->len = 0; }
void keep(void) { shared_sock = make_listener(); }
void hand_on(struct conn *c) { consume(c->fd); log_line("len", c->len); }
static int helper(void) { return make_listener(); }
int main(void) { return helper(); }
)");
  NamesThatMatter names = namesThatMatter(l.p());
  // Callers of what makes and listens on a socket matter; a file-local helper and main() cannot
  // be named elsewhere.
  EXPECT_TRUE(names.used.count("make_listener"));
  EXPECT_TRUE(names.used.count("store"));
  EXPECT_FALSE(names.used.count("helper"));
  EXPECT_FALSE(names.used.count("main"));
  // The field and the global the socket is stored in; not the field that only holds a length.
  EXPECT_TRUE(names.fields.count("fd"));
  EXPECT_FALSE(names.fields.count("len"));
  EXPECT_TRUE(names.used.count("shared_sock"));
  // A callee handed the socket, defined in no file parsed yet: its definition matters; one
  // handed only a length does not.
  EXPECT_TRUE(names.defined.count("consume"));
  EXPECT_FALSE(names.defined.count("log_line"));
  EXPECT_FALSE(names.used.count("log_line"));
}

TEST(ProjectOptions, CallbackRegistrarsWithWhatTheyPass) {
  ProjectOptions o =
      options({{"CallbackRegistrars", "ev_watch:4:2:2;ev_data:1:2:0:accepts:3>2;workq_post:-1:1:-1:2>0:3>1"}});
  ASSERT_EQ(o.registrars.size() - o.builtinRegistrars, 3u);
  const Registrar &data = o.registrars[o.builtinRegistrars + 1], &post = o.registrars[o.builtinRegistrars + 2];
  EXPECT_TRUE(data.accepts);
  EXPECT_EQ(data.passes, (std::vector<std::pair<int, int>>{{3, 2}}));
  EXPECT_EQ(post.fdArg, -1);
  EXPECT_EQ(post.passes, (std::vector<std::pair<int, int>>{{2, 0}, {3, 1}}));
  // A registration without an fd must pass something; a half-given fd, a bad pair: refused.
  for (const char *bad :
       {"workq_post:-1:1:-1", "w:-1:1:0:2>0", "w:0:1:0:2-0", "w:0:1:0:accepts:x>1", "w:-1:1:-1:accepts:2>0"}) {
    std::vector<std::string> errors;
    ProjectOptions refused = ProjectOptions::parse(
        [&](llvm::StringRef name) -> std::optional<std::string> {
          return name == "CallbackRegistrars" ? std::optional<std::string>(bad) : std::nullopt;
        },
        [&](const std::string &error) { errors.push_back(error); });
    EXPECT_EQ(refused.registrars.size(), refused.builtinRegistrars) << bad;
    EXPECT_EQ(errors.size(), 1u) << bad;
  }
}

TEST(ProjectOptions, FdHoldersWithTheArgumentThatHoldsTheFd) {
  ProjectOptions o = options({{"FdHolders", "box_new:0:box_fd:-1:Box;box_init:2:box_fileno:1:Box:0"}});
  ASSERT_EQ(o.fdHolders.size() - o.builtinFdHolders, 2u);
  EXPECT_EQ(o.fdHolders[o.builtinFdHolders].holderArg, -1); // left out: the store returns the holder
  EXPECT_EQ(o.fdHolders[o.builtinFdHolders + 1].holderArg, 0);
  // The holder may not be the fd; positions past the models' bound are refused, as a model's are.
  for (const char *bad : {"box_init:2:box_fd:-1:Box:2", "box_init:2:box_fd:-1:Box:-2", "box_init:2:box_fd:-1:Box:65",
                          "box_init:2:box_fd:-1:Box:0:1", "w:0:1:0:2>65"}) {
    std::vector<std::string> errors;
    ProjectOptions refused = ProjectOptions::parse(
        [&](llvm::StringRef name) -> std::optional<std::string> {
          if (llvm::StringRef(bad).starts_with("w:"))
            return name == "CallbackRegistrars" ? std::optional<std::string>(bad) : std::nullopt;
          return name == "FdHolders" ? std::optional<std::string>(bad) : std::nullopt;
        },
        [&](const std::string &error) { errors.push_back(error); });
    EXPECT_EQ(refused.fdHolders.size(), refused.builtinFdHolders) << bad;
    EXPECT_EQ(refused.registrars.size(), refused.builtinRegistrars) << bad;
    EXPECT_EQ(errors.size(), 1u) << bad;
  }
}

TEST(ProjectOptions, HolderCallsSayWhatALibraryDoesToAHoldersSocket) {
  ProjectOptions o = options({{"HolderCalls", "box_bind:0:bind:Box:-1:AF_UNIX:SOCK_STREAM;box_connect:1:connect:Box:-1:"
                                              "AF_INET6:;box_accept:0:accept:Box:1"}});
  std::size_t builtin = 0;
  for (const HolderCall &c : o.holderCalls)
    builtin += c.builtin;
  ASSERT_EQ(o.holderCalls.size() - builtin, 3u);
  const HolderCall &bind = o.holderCalls[builtin], &connect = o.holderCalls[builtin + 1],
                   &accept = o.holderCalls[builtin + 2];
  EXPECT_EQ(bind.effect, OwnerEffect::Bind);
  EXPECT_EQ(bind.family, facts::Family::Unix);
  EXPECT_EQ(bind.type, afunix::kernel::kSockStream);
  EXPECT_EQ(connect.holderArg, 1);
  EXPECT_EQ(connect.family, facts::Family::Inet6);
  EXPECT_EQ(connect.type, -1); // left empty: the library decides
  EXPECT_EQ(accept.effect, OwnerEffect::Accept);
  EXPECT_EQ(accept.intoArg, 1);
  EXPECT_FALSE(accept.family); // an accept makes no socket of a family of its own
  EXPECT_NE(o.extractionFingerprint(), options({}).extractionFingerprint());
  // An accept names the holder it fills and only an accept does; only a bind or connect makes a
  // socket; the effect is one of four; positions are bounded.
  for (const char *bad : {"box_accept:0:accept:Box:-1", "box_listen:0:listen:Box:1", "box_accept:1:accept:Box:1",
                          "box_listen:0:listen:Box:-1:AF_UNIX:SOCK_STREAM", "box_bind:0:open:Box:-1",
                          "box_bind:65:bind:Box:-1", "box_bind:0:bind:Box:-1:AF_UNIX",
                          "box_bind:0:bind:Box:-1:AF_LOCAL7:SOCK_STREAM", "box_bind:0:bind::-1"}) {
    std::vector<std::string> errors;
    ProjectOptions refused = ProjectOptions::parse(
        [&](llvm::StringRef name) { return name == "HolderCalls" ? std::optional<std::string>(bad) : std::nullopt; },
        [&](const std::string &error) { errors.push_back(error); });
    EXPECT_EQ(refused.holderCalls.size(), builtin) << bad;
    EXPECT_EQ(errors.size(), 1u) << bad;
  }
}

TEST(SocketVocabulary, HoldsTheExtractorsWordsAndTheModels) {
  ProjectOptions o = options({{"SocketProducers", "open_listener"},
                              {"CallbackRegistrars", "watch_fd:0:1:0"},
                              {"FdOwnerClasses", "base::ScopedFD"}});
  std::set<std::string> words = socketVocabulary(o);
  for (const char *word : {"socket", "sendmsg", "SCM_RIGHTS", "SO_PASSCRED", "SD_LISTEN_FDS_START",
                           "open_listener", "watch_fd", "ScopedFD", "sd_event_add_io", "SYS_sendmsg",
                           "unixmessage_putv", "uv_pipe_bind", "uv_accept"})
    EXPECT_TRUE(words.count(word)) << word;
  EXPECT_FALSE(words.count("write")); // only where the program's sockets are: reached by name
}

namespace afunix::analysis {
namespace {

// Two files that each define handle(), so the link must know every unit's definitions before it
// merges the first (each definition becomes a function of its own).
const std::vector<Source> kTwoDefinitions = {
    {"a.c",
     "int handle(int fd) { char b[64]; struct iovec v = {b, sizeof b}; char c[CMSG_SPACE(sizeof(struct ucred))];"
     "  struct msghdr m = {0}; m.msg_iov = &v; m.msg_iovlen = 1; m.msg_control = c; m.msg_controllen = sizeof c;"
     "  if (recvmsg(fd, &m, 0) < 0) return -1; struct cmsghdr *h = CMSG_FIRSTHDR(&m);"
     "  if (h && h->cmsg_type == SCM_CREDENTIALS) { struct ucred u; memcpy(&u, CMSG_DATA(h), sizeof u); return u.uid == 0; }"
     "  return 0; }"
     "int main(void) { int s = socket(AF_UNIX, SOCK_SEQPACKET, 0); return handle(s); }"},
    {"b.c", "int handle(int fd) { return close(fd); }"
            "int serve(void) { int s = socket(AF_UNIX, SOCK_STREAM, 0); return handle(s); }"},
};

TEST(Link, UnitsDecodedOneAtATimeLinkAsUnitsInMemory) {
  Linked memory = link(kTwoDefinitions);
  auto functionKeys = [](const Program &p) {
    std::vector<std::string> keys;
    for (const facts::Function &f : p.functions)
      keys.push_back(f.key);
    return keys;
  };
  // The two definitions were told apart: each is a function of its own (c:@F@handle@/.../a.c).
  std::vector<std::string> keys = functionKeys(memory.p());
  ASSERT_EQ(llvm::count_if(keys, [](llvm::StringRef key) { return key.starts_with("c:@F@handle@/"); }), 2)
      << llvm::join(keys, " ");
  std::vector<std::string> encoded;
  std::vector<UnitOutline> outlines;
  for (const facts::Unit &unit : memory.units) {
    encoded.push_back(facts::encodeUnit(unit));
    outlines.push_back(UnitOutline::of(unit));
  }
  std::size_t loads = 0;
  llvm::Expected<std::unique_ptr<Program>> streamed =
      Program::link(outlines, [&](std::size_t i, facts::Unit &scratch) -> llvm::Expected<Program::LoadedUnit> {
        EXPECT_EQ(i, loads++); // in order, each once
        llvm::Expected<facts::Unit> decoded = facts::decodeUnit(encoded[i]);
        if (!decoded)
          return decoded.takeError();
        scratch = std::move(*decoded);
        return Program::LoadedUnit{&scratch, &scratch};
      });
  ASSERT_TRUE(static_cast<bool>(streamed)) << llvm::toString(streamed.takeError());
  EXPECT_EQ(loads, kTwoDefinitions.size());
  EXPECT_EQ(functionKeys(**streamed), keys);
  EXPECT_EQ((*streamed)->dump(), memory.dump);
}

TEST(Link, AUnitThatDoesNotLoadEndsTheLinkWithItsError) {
  Linked memory = link(kTwoDefinitions);
  std::vector<UnitOutline> outlines;
  for (const facts::Unit &unit : memory.units)
    outlines.push_back(UnitOutline::of(unit));
  llvm::Expected<std::unique_ptr<Program>> streamed =
      Program::link(outlines, [&](std::size_t i, facts::Unit &) -> llvm::Expected<Program::LoadedUnit> {
        if (i == 1)
          return llvm::createStringError(llvm::inconvertibleErrorCode(), "b.c: damaged binary facts: truncated");
        return Program::LoadedUnit{&memory.units[i], nullptr};
      });
  ASSERT_FALSE(static_cast<bool>(streamed));
  EXPECT_EQ(llvm::toString(streamed.takeError()), "b.c: damaged binary facts: truncated");
}

} // namespace
} // namespace afunix::analysis
