// The project's knowledge of its own code, as every front end passes it: clang-tidy CheckOptions
// (afunix-*.SocketProducers, ...), afunix-check's config file (turned into the same option
// strings) and afunix-clangd's .clang-tidy. One parser for all of them.
#pragma once

#include "Facts.h"

#include "afunix/KernelVersion.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace afunix::analysis {

// A project function that registers an fd with a callback: `name:FD_ARG:CALLBACK_ARG:PARAM`
// (argument positions from 0; PARAM is the callback's parameter that receives the fd; both -1 for
// a registration handed only user data).
struct Registrar {
  std::string name;
  int fdArg = -1;
  int callbackArg = -1;
  int param = -1;
  bool accepts = false; // `...:accepts`: the callback gets connections accept()ed on the fd
  // `...:ARG>PARAM`: the callback's parameter PARAM gets the registration's argument ARG (user data).
  std::vector<std::pair<int, int>> passes;
};

// A library object that holds an fd: `STORE:FD_ARG:LOAD:OUT_ARG:NAME[:HOLDER_ARG]` (OUT_ARG -1:
// LOAD returns the fd; HOLDER_ARG -1 or left out: STORE returns the holder). The fd is a member
// of each holder object; LOAD reads it from the holder its first argument points to.
struct FdHolder {
  std::string store;
  int fdArg = -1;
  std::string load;
  int outArg = -1;
  std::string name;
  int holderArg = -1; // the argument of STORE that points to the holder; -1: STORE returns it
};

// A function that stands for sendmsg() or recvmsg() with its arguments from `firstArg` on
// (`NAME:CALL:FIRST_ARG[:NUMBER|NUMBER...]`); with numbers, only calls whose first argument is
// spelled as one of them (syscall(SYS_sendmsg, ...)).
struct SyscallWrapper {
  std::string name;
  std::string call;
  unsigned firstArg = 0;
  std::vector<std::string> numbers;
  bool builtin = false; // the catalog's: applies to functions declared in system headers only
};

// A library call that queues a message with fds, sent later in one sendmsg() (skalibs'
// unixmessage_putv()): argument `messageArg` is the message (or its address), its field `count`
// how many fds it carries.
struct MessageQueue {
  std::string name;
  unsigned messageArg = 0;
  std::string fds;
  std::string count;
  bool builtin = false; // the catalog's: applies to functions declared in system headers only
};

// A library function that sends fds in one SCM_RIGHTS message on the socket it is given
// (FdSenders `NAME:SOCKET_ARG:FDS_ARG[...][:COUNT_ARG][:holder=HOLDER]`, docs/models.md: libancillary's
// ancil_send_fds(sock, fds, n) and ancil_send_fd(sock, fd), which projects vendor; android-base's
// SendFileDescriptors(sock, data, len, fds...), `android::base::SendFileDescriptors:0:3...`;
// libuv's uv_write2(req, stream, bufs, n, send_handle, cb), `uv_write2:1:4:holder=uv_handle_t`).
struct FdSender {
  std::string name; // qualified (ns::f): that namespace's function, its body the library's
  unsigned socketArg = 0;
  unsigned fdsArg = 1;
  int countArg = -1; // the call does not say how many (one fd, or a container's size)
  bool variadic = false; // FDS_ARG... : that argument and every one after it is one fd
  // Not empty: SOCKET_ARG and FDS_ARG point to holders of the fd_holders entries of this name,
  // and the call sends the one fd FDS_ARG's holder keeps on the one SOCKET_ARG's keeps.
  std::string holder;
  bool builtin = false; // the catalog's: applies to functions declared in system headers only
};

// A library call that reads from the socket given as argument `socketArg` (Receivers
// `NAME:SOCKET_ARG`: GIO's g_input_stream_read(stream, ...)), or one that returns an object
// standing for the same channel as its argument `socketArg` (ChannelViews `NAME:OF_ARG`: GLib's
// checked cast, g_io_stream_get_input_stream(connection)).
struct ChannelCall {
  unsigned socketArg = 0;
  bool builtin = false; // the catalog's: applies where an installed library's header declares it
};

// A library's container class (Containers `CLASS[|ADD+ADD...[|DATA+DATA...]]`, docs/models.md):
// its objects hold their elements as std::vector's do, through the standard's vocabulary plus
// `adds` (methods whose arguments become elements) and `data` (methods giving the elements'
// storage). Its own code is not followed from those calls.
struct ContainerClass {
  std::string name; // qualified (llvm::SmallVector): that namespace's class; plain: any of that name
  std::vector<std::string> adds;
  std::vector<std::string> data;
  bool builtin = false;
};

// A function returning a new socket: `NAME[:FAMILY[:TYPE[:STATE]]]`, TYPE a SOCK_ name or argN
// (the type is the call's argument N), STATE `binds` or `listens` (what the socket is when it
// returns: bound, or bound and, when connection-oriented, listening).
struct SocketMaker {
  facts::Family family = facts::Family::Unix;
  std::string familyName = "AF_UNIX";
  int type = -1;    // SOCK_STREAM/DGRAM/SEQPACKET; -1: unknown or from typeArg
  int typeArg = -1;
  bool binds = false;
  bool listens = false;
};

// What a library fd owner class's methods and constructors do to its socket (FdOwnerClasses
// `CLASS|METHOD=EFFECT+...|WORD=EFFECT+...|TYPE|WORD=FAMILY+...`, docs/models.md).
// Methods only: Accept accepts a connection on the object's socket, into the library fd owner it
// is handed (acceptor.accept(peer), async_accept(peer, handler)) or as the owner it returns
// (peer = acceptor.accept()); Option sets the socket option its argument's type names by its
// template arguments (set_option(boolean<SOL_SOCKET, SO_PASSCRED>(true))); Connect connects the
// object's socket, making it first when the object holds none; Send writes on it (write_some()).
enum class OwnerEffect : std::uint8_t { Socket, Bind, Listen, Accept, Option, Connect, Send };
struct FdOwnerModel {
  std::vector<std::pair<std::string, OwnerEffect>> methods;
  std::vector<std::pair<std::string, OwnerEffect>> constructors; // by a word of an argument's type
  int type = -1;
  std::vector<std::pair<std::string, std::string>> families; // a word of the object's type, AF_*
  // Free functions of the class's namespace that act on the object given as their first argument
  // (Boost.Asio's write(socket, buffers), connect(socket, endpoints)): Send or Connect.
  std::vector<std::pair<std::string, OwnerEffect>> functions;
  std::string scope; // that namespace, as the class's name was written ("" when unqualified)
};

// A library function that acts on the socket an fd holder keeps:
// `FUNCTION:HOLDER_ARG:EFFECT:NAME:INTO_ARG[:FAMILY:TYPE]` (EFFECT bind, listen, connect or
// accept; NAME the FdHolders name whose fd it is; INTO_ARG the holder an accept fills, else -1;
// with FAMILY a bind or connect makes the holder's socket first, of TYPE (may be empty)).
struct HolderCall {
  std::string name;
  int holderArg = -1;
  OwnerEffect effect = OwnerEffect::Bind;
  std::string holder; // the FdHolder's name
  int intoArg = -1;
  std::optional<facts::Family> family; // set: the call makes the holder's socket
  std::string familyName;
  int type = -1;
  bool builtin = false;
};

// How the facts name the file at `absolute` (absolute and dot-free): itself, or with
// `relativePaths` its path from the working directory when it lies below it.
std::string recordedPath(llvm::StringRef absolute, bool relativePaths);
// The process's working directory, absolute and dot-free, read once ("" when unreadable): what
// relative facts are relative to.
const std::string &workingDirectory();

// Every list starts with the built-in model catalog (models/*.yaml, afunix/ModelCatalog.h) and
// adds what the project's options say: the catalog and a project's `models:` are one kind of data.
struct ProjectOptions {
  // SocketProducers "open_listener;make_pair:AF_INET;local_server:AF_UNIX:arg2:listens":
  // functions returning a new socket of that family (AF_UNIX when none is written).
  llvm::StringMap<SocketMaker> socketProducers;
  // OptionWrappers "set_passcred;set_sec:SO_PASSSEC": functions that set the option on the
  // integer argument they get (SO_PASSCRED when none is written).
  llvm::StringMap<facts::Option> optionWrappers;
  // ExternalSocketSources "get_inherited_fd": functions returning an fd created elsewhere.
  std::vector<std::string> externalSources;
  // FdOwnerClasses "UniqueFd;base::ScopedFD": classes that own one fd (besides those recognised
  // by their shape).
  std::vector<std::string> fdOwnerClasses;
  // What the library ones among them do (by class name); a class without an entry only owns.
  std::map<std::string, FdOwnerModel> fdOwnerModels;
  // CallbackRegistrars "watch_fd:0:1:0;evconnlistener_new:5:1:1:accepts".
  std::vector<Registrar> registrars;
  // FdHolders "g_io_channel_unix_new:0:g_io_channel_unix_get_fd:-1:GIOChannel".
  std::vector<FdHolder> fdHolders;
  // HolderCalls "uv_pipe_bind:0:bind:uv_handle_t:-1:AF_UNIX:SOCK_STREAM;uv_accept:0:accept:uv_handle_t:1".
  std::vector<HolderCall> holderCalls;
  // Allocators "xmalloc;pool_alloc": functions whose every call returns a new object. The
  // catalog's apply only where declared in a system header (a project's own `zalloc` may be
  // anything); the project's apply to its own functions too. name -> from the project.
  llvm::StringMap<bool> allocators;
  // SyscallWrappers "syscall:sendmsg:1:SYS_sendmsg|__NR_sendmsg;sys_sendmsg:sendmsg:0".
  std::vector<SyscallWrapper> syscallWrappers;
  // MessageQueues "unixmessage_putv:1:fds:nfds".
  std::vector<MessageQueue> messageQueues;
  // FdSenders "ancil_send_fds:0:1:2".
  std::vector<FdSender> fdSenders;
  // Containers "llvm::SmallVectorImpl;QList|append+prepend|constData".
  std::vector<ContainerClass> containers;
  // Receivers "g_input_stream_read:0" and ChannelViews "g_io_stream_get_input_stream:0".
  llvm::StringMap<ChannelCall> receivers;
  llvm::StringMap<ChannelCall> channelViews;
  // How many of registrars and fdHolders come first from the built-in catalog: part of the
  // checker, not of the project's options (extractionFingerprint leaves them out).
  std::size_t builtinRegistrars = 0;
  std::size_t builtinFdHolders = 0;
  // Paths under the working directory are written into the facts relative to it (the front end's
  // --relative-paths; not a config option): facts extracted in one checkout or sandbox and judged
  // in another, as Bazel's remote actions and CI runners are. Other paths (system headers) stay
  // absolute.
  bool relativePaths = false;
  // Rule evaluation.
  bool pedantic = false;
  std::optional<KernelVersion> targetKernel;

  // Reads every option through `get` (name -> value, nullopt when unset). Malformed entries are
  // reported through `error` (one message each) and skipped.
  static ProjectOptions parse(llvm::function_ref<std::optional<std::string>(llvm::StringRef)> get,
                              llvm::function_ref<void(const std::string &)> error);
  // Everything that changes what the extractor writes (not pedantic/targetKernel): part of the
  // key under which facts may be reused.
  std::string extractionFingerprint() const;
  std::string recordedPath(llvm::StringRef absolute) const {
    return analysis::recordedPath(absolute, relativePaths);
  }
};

// The option names, for front ends that list or store them.
inline constexpr const char *kProjectOptionNames[] = {
    "SocketProducers", "OptionWrappers", "ExternalSocketSources", "FdOwnerClasses",
    "CallbackRegistrars", "FdHolders", "HolderCalls", "Allocators", "SyscallWrappers", "MessageQueues", "FdSenders", "Containers",
    "Receivers", "ChannelViews", "Pedantic",
    "TargetKernel"};

} // namespace afunix::analysis
