// The model catalog: what the analysis knows about code it does not see (event loops, fd-holding
// library objects, allocators, socket makers, setsockopt() wrappers, sockets from elsewhere,
// fd-owning classes). Built in from models/*.yaml (compiled in by afunix-rules-gen, see
// afunix/ModelCatalog.h) and extended by a project's `models:` (.afunix-check.yaml). Both are read
// by this one parser and handed to the analysis as its check options, the form clang-tidy's
// CheckOptions take too (docs/models.md). yaml-cpp exceptions never leave this interface.
#pragma once

#include "afunix/Catalog.h"

#include <map>
#include <string>
#include <vector>

namespace afunix::rules {
// The largest argument position a model may name: far past any real function's arguments.
inline constexpr int kMaxArgumentPosition = 64;
} // namespace afunix::rules

namespace YAML {
class Node;
}

namespace afunix::rules {

struct EventLoopModel {
  std::string function;
  int fd = -1;         // argument positions from 0; -1: the loop is handed no fd (only `passes`)
  int callback = -1;
  int callbackFd = -1; // the callback's parameter that receives the fd
  bool accepts = false; // the callback gets connections accept()ed on the registered listener
  // (argument, parameter): the callback's parameter gets what the registration's argument is (its
  // user data: sd_event_add_io's userdata, argument 5, is the handler's parameter 3).
  std::vector<std::pair<int, int>> passes;
};

struct FdHolderModel {
  std::string store;
  int fd = -1;
  std::string load;
  int loadOut = -1; // the load writes the fd through this argument; -1: it returns the fd
  std::string name; // the holder's type, for the place every such object's fd shares
  int holder = -1;  // the store's argument that points to the holder; -1: the store returns it
};

// A library function that acts on the socket an fd holder keeps (holder_calls): argument `holder`
// points to the holder (of the fd_holders entries named `name`); `does` is "bind", "listen",
// "connect" or "accept". With `family`, a bind or connect makes the holder's socket first (of that
// family and `type`), as libuv's uv_pipe_bind() and uv_pipe_connect() do; an accept puts the
// connection it accepts on the holder's listener into the holder argument `into` points to
// (uv_accept(server, client)).
struct HolderCallModel {
  std::string function;
  int holder = -1;
  std::string does;
  std::string name;
  int into = -1;
  std::string family; // "" when the call makes no socket
  std::string type;
};

// A function that stands for a socket call with its arguments from `firstArg` on: libc's
// syscall(SYS_sendmsg, fd, &msg, flags), a library's sys_sendmsg(fd, &msg, flags). With `numbers`,
// only the calls whose first argument is spelled as one of them.
struct SyscallWrapperModel {
  std::string function;
  std::string call; // sendmsg | recvmsg
  int firstArg = 0;
  std::vector<std::string> numbers;
};

// A library that queues a message with fds and sends it later, in one sendmsg() with all its fds
// in SCM_RIGHTS (skalibs' unixmessage_putv(&sender, &m) and its flush): `function(...)` queues the
// message given as argument `message`, whose field `count` says how many fds (field `fds`) it
// carries.
struct MessageQueueModel {
  std::string function;
  int message = -1;
  std::string fds;   // the message's field holding the fds
  std::string count; // the message's field holding how many
};

// A library function that sends fds in one SCM_RIGHTS message on the socket it is given
// (fd_senders): the socket is argument `socket`, the fds argument `fds` (one fd, an array or a
// container), their number argument `count` when the call says it (-1: it does not). `variadic`:
// argument `fds` and every one after it is one fd (android-base's SendFileDescriptors(sock, data,
// len, fds...)). A qualified `function` (android::base::SendFileDescriptors) names the library's
// own function wherever it is declared, and is modelled even where its body is in the unit (a
// header-only library's template). With `holder`, the socket and fds arguments point to holders
// (the fd_holders entries of that name): the socket is the one the first keeps, and the one fd
// sent the one the second keeps (libuv's uv_write2(req, stream, bufs, n, send_handle, cb)).
struct FdSenderModel {
  std::string function;
  int socket = -1;
  int fds = -1;
  int count = -1;
  bool variadic = false;
  std::string holder;
};

// A library function that returns a new socket (socket_makers): of `family`, of socket type `type`
// (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET) or the type given as argument `typeArg`; with `binds`
// it is already bound to an address when it returns, and with `listens` a connection-oriented one
// is already listening (Android's libcutils socket_local_server(name, namespace, type)).
struct SocketMakerModel {
  std::string function;
  std::string family = "AF_UNIX";
  std::string type;  // "" when not known, or given by typeArg
  int typeArg = -1;
  bool binds = false;
  bool listens = false;
};

// A library class whose object owns one socket (fd_owner_classes): the object stands for its fd
// (native_handle() and the like give it). For a library whose code is not analysed (Boost.Asio),
// `methods` say which of its methods make the socket, bind it or make it listen ("socket",
// "bind", "listen"), and `constructors` which constructors do, by a word in the name of one of
// their arguments' types ("endpoint": basic_socket_acceptor(io, endpoint) opens, binds and
// listens). `type`: the socket type of every such object, when the class fixes it; `families`: the
// family, by the first word the object's type (with its template arguments) contains
// (basic_socket_acceptor<local::stream_protocol>: "local::" is AF_UNIX).
struct FdOwnerClassModel {
  std::string name;
  std::vector<std::pair<std::string, std::string>> families; // word, family
  std::vector<std::pair<std::string, std::string>> methods;      // method, effect
  std::vector<std::pair<std::string, std::string>> constructors;  // argument type word, effect
  std::vector<std::pair<std::string, std::string>> functions;     // free function, effect
  std::string type;
};

// A container class of a library other than the C++ standard library (containers): its object
// holds the values stored into it (llvm::SmallVector, absl::InlinedVector, QList), as
// std::vector's does. The standard's vocabulary applies (push_back, emplace_back, insert,
// operator[], at, front, back, data, begin, end; the elements a constructor is given); `adds`
// names further methods whose arguments become elements (QList::append), `data` further methods
// that give the elements' storage (QList::constData). A qualified `name` matches that namespace's
// class wherever it is declared, a plain one any class of that name; a class derived from it is
// one too (llvm::SmallVector from llvm::SmallVectorImpl).
struct ContainerModel {
  std::string name;
  std::vector<std::string> adds;
  std::vector<std::string> data;
};

// A library function that reads from the socket given as argument `socket` (receivers): GIO's
// g_input_stream_read(stream, ...), g_socket_receive(socket, ...). In a loop around a send on that
// channel it is the peer's acknowledgement, as recv() on the fd would be.
struct ReceiverModel {
  std::string function;
  int socket = -1;
};

// A library function that returns an object standing for the same channel as its argument `of`
// (channel_views): GLib's checked cast behind G_IO_STREAM(x), a connection's input stream or its
// GSocket. A receive or send through the view is one on the argument.
struct ChannelViewModel {
  std::string function;
  int of = -1;
};

struct Models {
  std::vector<EventLoopModel> eventLoops;
  std::vector<FdHolderModel> fdHolders;
  std::vector<HolderCallModel> holderCalls;
  std::vector<std::string> allocators;
  std::vector<SocketMakerModel> socketMakers;
  std::vector<std::pair<std::string, std::string>> optionWrappers; // function, option
  std::vector<std::string> externalSockets;
  std::vector<FdOwnerClassModel> fdOwnerClasses;
  std::vector<SyscallWrapperModel> syscallWrappers;
  std::vector<MessageQueueModel> messageQueues;
  std::vector<FdSenderModel> fdSenders;
  std::vector<ContainerModel> containers;
  std::vector<ReceiverModel> receivers;
  std::vector<ChannelViewModel> channelViews;
};

// Reads one models mapping (a models/*.yaml file, or the value of `models:`) into `out`,
// appending. Errors are file:line:col with the field at fault; nothing of a bad entry is kept.
bool parseModels(const YAML::Node &node, const std::string &fileName, Models &out,
                 std::vector<CatalogError> &errors);
bool parseModelsText(const std::string &yamlText, const std::string &fileName, Models &out,
                     std::vector<CatalogError> &errors);
// Every models/*.yaml of a directory, in name order.
bool loadModelsDirectory(const std::string &directory, Models &out,
                         std::vector<CatalogError> &errors);

// The models as the analysis's check options (CallbackRegistrars, FdHolders, HolderCalls, Allocators,
// SocketProducers, OptionWrappers, ExternalSocketSources, FdOwnerClasses, SyscallWrappers,
// MessageQueues, FdSenders, Containers, Receivers, ChannelViews), each a ';'-separated
// list in the form ProjectOptions parses. Options with nothing to say are left out.
std::map<std::string, std::string> modelOptions(const Models &models);

} // namespace afunix::rules
