// The facts a whole-program run leaves in the build directory (afunix-facts.json next to
// compile_commands.json), for the editor: afunix-clangd links the file being edited with the
// stored facts of every other TU. A stored TU whose source file changed since the run is left
// out (its functions are then unknown, as in a per-file run) and counted in the log, so the editor
// never reports from facts it knows are stale. See docs/facts-format.md.
#pragma once

#include "Facts.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace afunix::analysis {

inline constexpr const char *kStoredFactsName = "afunix-facts.json";

class StoredFacts {
public:
  // The stored facts for the project of `mainFile` (found the way clangd finds a compile
  // database: in each parent directory and its build/ subdirectory), when they were extracted
  // with the same options (`fingerprint`). Cached per file; reread when it changes.
  // Only the editor links with stored facts: afunix-clangd turns this on at start-up; the
  // clang-tidy plugin and afunix-check --single-tu judge each file on its own.
  static std::shared_ptr<const StoredFacts> forFile(const std::string &mainFile,
                                                    const std::string &fingerprint);
  static void enableForEditor();
  // Reads a stored-facts file; nullptr and `error` when it is damaged or of another version.
  static std::shared_ptr<const StoredFacts> read(const std::string &path, std::string &error);
  // Writes `units` to `path` (replaced atomically). False and `error` on failure. `content`, when
  // given, is a digest of everything written but the stamps (the units' facts, in order, and the
  // fingerprint), kept in the header for upToDate(). `unitKeys`, when given, has one key per unit
  // ("" when unknown) that decides its line entirely (its facts, the writer, the format): a unit
  // whose key the file at `path` already holds, on a line still as written, has that line copied
  // instead of written again, so a warm run after a one-file edit writes one unit, not all.
  static bool write(const std::string &path, const std::vector<const facts::Unit *> &units,
                    const std::string &fingerprint, std::string &error,
                    const std::string &content = "",
                    const std::vector<std::string> &unitKeys = {});
  // Whether `path` holds exactly what write() would write now: the same `content` digest and every
  // unit's main file as stamped. Reads the header line only: a warm run whose facts all came from
  // the facts cache need not rewrite the file.
  static bool upToDate(const std::string &path, const std::string &content);

  // Every stored unit whose files are as they were stamped when the facts were written (its
  // main file and the headers its facts point into: size and modification time), except the one
  // of `mainFile`. Decided at each call: a file saved since the read makes its unit stale.
  std::vector<const facts::Unit *> unitsExcept(const std::string &mainFile) const;
  // What the editor's parse of a file cannot see: clangd parses the headers (its preamble)
  // without function bodies, so a header's inline functions and the template members the file
  // instantiates have none in `editor`. These are the facts of the bodies the stored run parsed
  // in the same file's unit that are outside the file itself, the rest of that unit left out;
  // nothing when the stored unit or a header it names changed.
  std::optional<facts::Unit> headerBodiesFor(const facts::Unit &editor) const;
  // The target the stored run built `mainFile` into ("" if it has no unit here).
  std::string targetOf(const std::string &mainFile) const;
  // The main files of the stored units that are not (a file changed since), now.
  std::vector<std::string> staleFiles() const;
  std::size_t size() const { return Units.size(); }
  const std::string &fingerprint() const { return Fingerprint; }

  struct FileStamp {
    std::uint64_t size = 0;
    std::int64_t mtime = 0;
  };

private:
  bool fresh(const facts::Unit &unit, bool mainFileToo = true) const;
  std::vector<facts::Unit> Units;
  std::map<std::string, FileStamp> Stamps; // as written
  std::string Fingerprint;
};

} // namespace afunix::analysis
