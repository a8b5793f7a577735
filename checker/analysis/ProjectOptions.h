// The project's knowledge of its own code, as every front end passes it: clang-tidy CheckOptions
// (afunix-*.SocketProducers, ...), afunix-check's config file (turned into the same option
// strings) and afunix-clangd's .clang-tidy. One parser for all of them.
#pragma once

#include "Facts.h"

#include "afunix/KernelVersion.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace afunix::analysis {

// A project function that registers an fd with a callback: `name:FD_ARG:CALLBACK_ARG:PARAM`
// (argument positions from 0; PARAM is the callback's parameter that receives the fd).
struct Registrar {
  std::string name;
  int fdArg = -1;
  int callbackArg = -1;
  int param = -1;
};

struct ProjectOptions {
  // SocketProducers "open_listener;make_pair:AF_INET": functions returning a new socket of that
  // family (AF_UNIX when none is written).
  llvm::StringMap<facts::Family> socketProducers;
  llvm::StringMap<std::string> producerFamilyNames;
  // OptionWrappers "set_passcred;set_sec:SO_PASSSEC": functions that set the option on the
  // integer argument they get (SO_PASSCRED when none is written).
  llvm::StringMap<facts::Option> optionWrappers;
  // ExternalSocketSources "get_inherited_fd": functions returning an fd created elsewhere.
  std::vector<std::string> externalSources;
  // FdOwnerClasses "UniqueFd;base::ScopedFD": classes that own one fd (besides those recognised
  // by their shape).
  std::vector<std::string> fdOwnerClasses;
  // CallbackRegistrars "watch_fd:0:1:0".
  std::vector<Registrar> registrars;
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
};

// The option names, for front ends that list or store them.
inline constexpr const char *kProjectOptionNames[] = {
    "SocketProducers", "OptionWrappers", "ExternalSocketSources", "FdOwnerClasses",
    "CallbackRegistrars", "Pedantic", "TargetKernel"};

} // namespace afunix::analysis
