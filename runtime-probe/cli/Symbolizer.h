// Code addresses (module + offset, from the probe's reports) to function, file and line, with the
// chain of inlined functions, using the DWARF of the binaries on disk. llvm-symbolizer-19 (or
// another llvm-symbolizer) is preferred, addr2line (binutils) is the fallback; with neither, or
// for a module that changed since the run (its build-id differs), frames stay module+offset and
// the summary says why.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace afunix::probe {

struct SourceFrame {
  std::string function; // demangled; "" when unknown
  std::string file;     // "" when the module has no line information
  unsigned line = 0, column = 0;
  bool inlined = false; // inlined into the next frame of the same address
};

// One code address, symbolised: the innermost frame first, then the functions it is inlined into.
struct SymbolizedAddress {
  std::string module; // path of the object
  uint64_t offset = 0;
  std::vector<SourceFrame> frames; // empty: not symbolised (see Symbolizer::notes)
};

class Symbolizer {
public:
  // `tool`: a path or name ("" = look for llvm-symbolizer-19, llvm-symbolizer, addr2line in PATH;
  // "none" = do not symbolise).
  explicit Symbolizer(const std::string &tool = "");

  // Queues an address for symbolisation. `returnAddress`: the address is a return address (the
  // instruction after a call), so the call itself is looked up (address - 1), as debuggers do.
  void add(const std::string &module, const std::string &buildId, uint64_t offset, bool returnAddress = true);
  // Symbolises everything queued (one symbolizer run per tool invocation).
  void run();
  const SymbolizedAddress *find(const std::string &module, uint64_t offset) const;

  const std::string &toolName() const { return toolName_; }
  // Why some or all addresses have no file:line (tool missing, module changed or unreadable...).
  const std::vector<std::string> &notes() const { return notes_; }

private:
  struct Key {
    std::string module;
    uint64_t offset;
    bool operator<(const Key &o) const { return std::tie(module, offset) < std::tie(o.module, o.offset); }
  };
  struct Pending {
    std::string buildId;
    bool returnAddress = true;
  };
  std::string tool_, toolName_;
  bool llvm_ = false;
  std::map<Key, Pending> pending_;
  std::map<Key, SymbolizedAddress> done_;
  std::vector<std::string> notes_;
  void runLlvm(const std::vector<std::pair<Key, Pending>> &items);
  void runAddr2line(const std::vector<std::pair<Key, Pending>> &items);
};

// The GNU build-id of an ELF file on disk, as lowercase hex ("" if it has none or is unreadable).
std::string buildIdOfFile(const std::string &path);

// Runs `argv` with stdin from `input` (a string written to a temporary file) and returns its
// stdout; false when it could not be started or did not exit 0.
bool runTool(const std::vector<std::string> &argv, const std::string &input, std::string &output);

// The first of `names` that is an executable in PATH (or a path that is executable), "" if none.
std::string findInPath(const std::vector<std::string> &names);

} // namespace afunix::probe
