// The project configuration file: which functions wrap setsockopt() or hand out sockets, per-rule
// severities and rules to skip, the kernel to judge against. Found as .afunix-check.yaml in each
// file's directory or the nearest parent (as clang-tidy finds .clang-tidy), or given with
// --config=FILE for every file.
#pragma once

#include "afunix/Models.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace afunix::check {

inline constexpr const char *kConfigFileName = ".afunix-check.yaml";

struct Config {
  std::vector<std::string> wrappers;        // setsockopt()-like wrappers: check option OptionWrappers
  std::vector<std::string> socketProducers; // functions returning a new socket: SocketProducers
  std::vector<std::string> externalSockets; // functions returning an inherited fd: ExternalSocketSources
  rules::Models models; // `models:` (docs/models.md): added to the built-in model catalog
  std::map<std::string, std::string> severity; // rule id -> error | warning | note
  std::vector<std::string> disable;            // rule ids never run
  std::optional<bool> pedantic;
  std::string targetKernel; // "" = every kernel
  std::string docsUrl;      // docs_url: where SARIF and editors link rule pages ("" = installed docs)
  std::string path;         // the file it was read from ("" = none: the defaults)
};

// Reads and validates a config file. On failure `error` is "FILE:LINE:COL: field 'F': what"
// (LINE/COL are 1-based; omitted when the whole file is at fault). Never throws.
bool loadConfig(const std::string &path, Config &out, std::string &error);
// Same, from text; `name` stands for the file in messages.
bool parseConfig(const std::string &text, const std::string &name, Config &out, std::string &error);

// "X.Y" or "X.Y.Z" with sane numbers; what --target-kernel and target_kernel accept.
bool validKernelVersion(const std::string &text);

// The configuration that governs each file: --config when given, otherwise the nearest
// .afunix-check.yaml walking up from the file's directory (none: the defaults). Each file is read
// and validated once. Thread-safe.
class ConfigFinder {
public:
  // `explicitPath` non-empty: that file governs every path (it is loaded here).
  bool init(const std::string &explicitPath, std::string &error);

  // The configuration for `path` (a file or, with `isDirectory`, a directory), or nullptr with
  // `error` ("FILE:LINE:COL: field ...") when the file found is invalid. The pointer stays valid
  // as long as the finder.
  const Config *configFor(const std::string &path, std::string &error, bool isDirectory = false);

  // Every configuration file read so far, in order (for --verbose style messages and tests).
  std::vector<std::string> filesRead() const;

private:
  const Config *load(const std::string &file, std::string &error);
  std::string nearest(const std::string &directory);

  mutable std::mutex mutex_;
  bool explicit_ = false;
  Config defaults_;
  std::map<std::string, std::unique_ptr<Config>> byFile_;   // config path -> parsed
  std::map<std::string, std::string> errors_;               // config path -> error
  std::map<std::string, std::string> nearestByDirectory_;   // directory -> config path or ""
  std::vector<std::string> order_;
};

} // namespace afunix::check
