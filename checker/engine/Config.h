// The project configuration file (--config=FILE): which functions wrap setsockopt() or hand out
// sockets, per-rule severities and rules to skip, and the kernel to judge against.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace afunix::check {

struct Config {
  std::vector<std::string> wrappers;        // setsockopt()-like wrappers: check option OptionWrappers
  std::vector<std::string> socketProducers; // functions returning a new socket: SocketProducers
  std::vector<std::string> externalSockets; // functions returning an inherited fd: ExternalSocketSources
  std::map<std::string, std::string> severity; // rule id -> error | warning | note
  std::vector<std::string> disable;            // rule ids never run
  std::optional<bool> pedantic;
  std::string targetKernel; // "" = every kernel
};

// Reads and validates a config file. On failure `error` is "FILE:LINE:COL: field 'F': what"
// (LINE/COL are 1-based; omitted when the whole file is at fault). Never throws.
bool loadConfig(const std::string &path, Config &out, std::string &error);
// Same, from text; `name` stands for the file in messages.
bool parseConfig(const std::string &text, const std::string &name, Config &out, std::string &error);

// "X.Y" or "X.Y.Z" with sane numbers; what --target-kernel and target_kernel accept.
bool validKernelVersion(const std::string &text);

} // namespace afunix::check
