// The facts cache: each translation unit's facts (and whether it parsed), kept on disk under a
// key made of everything that decides them, so a run re-extracts only the units whose inputs
// changed. docs/facts-cache.md describes the layout and the guarantees.
//
// What decides a unit's facts, and where each part of the key lives:
//   - the checker: its version, its build (the ELF build-id of the running afunix-check), the
//     clang it parses with (clang's full version string), the facts format and encoding versions;
//   - the project options that change what the extractor writes (extractionFingerprint());
//   - the compile command (after the checker's adjustments), its working directory, the file;
//   - the bytes of the main file and of every file the parse read (headers, system headers
//     included): recorded in the entry with their digests and compared with the files as they
//     are now. A file that changed makes the entry stale; the unit is parsed again and the new
//     entry supersedes the old one.
// The first three are hashed into the entry's key; the last is checked on lookup (ccache's
// manifest scheme with one result per key). Digests are xxHash3-128 of the bytes, never of
// timestamps: touching a file without changing it costs nothing, and a file restored to older
// bytes is recognised.
//
// Entries live in packs (many entries per file: creating a file costs more than extracting a
// small unit's facts on a journaling file system), written whole to a temporary file and renamed
// into place, never changed afterwards. A run writes a pack every few hundred entries or seconds
// (an interrupted run keeps what it wrote), the newest entry for a key wins, and a run that finds
// too many or too old packs merges their live entries into one. Concurrent runs each write their
// own packs; a pack deleted by another run's merge while a run reads it is still readable (Linux
// keeps an unlinked file for those who have it open), and one deleted before it was opened is a
// miss. Every pack has a checksum over its header and every entry one over its bytes; the facts
// in an entry are validated as they are decoded (FactsBinary.h). A damaged entry or pack is
// refused, counted, reported and rebuilt; a pack of another cache format or checker is not read
// (and deleted once old). The cache is never trusted over a parse.
#pragma once

#include "CompileDb.h"
#include "Finding.h"

#include "Facts.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class SourceManager;
}

namespace afunix::check {

// The files one parse read: absolute path and digest (fileDigest(), or "exists" for a file whose
// bytes were never read).
using CacheInputs = std::vector<std::pair<std::string, std::string>>;

// xxHash3-128 of `bytes`, as 32 hex digits.
std::string fileDigest(llvm::StringRef bytes);

// Every file the parse behind `sources` read, with the digest of the bytes it parsed.
CacheInputs inputsOf(const clang::SourceManager &sources);

// A digest of a unit's facts (of their binary encoding): equal digests, equal facts.
std::string factsDigest(llvm::StringRef encoded);

// What identifies this afunix-check build: version, build-id, clang version, facts formats.
const std::string &checkerIdentity();

class FactsCache {
public:
  // The cache in `directory` (created when missing, with a CACHEDIR.TAG so backup tools skip
  // it), its packs' indexes read. nullptr and `error` when it cannot be created or read.
  static std::unique_ptr<FactsCache> open(const std::string &directory, std::string &error);
  ~FactsCache(); // finish()es

  // The entry key of a job: a digest of everything but the contents of the files it reads.
  std::string keyOf(const CompileJob &job, const std::string &extractionFingerprint) const;

  struct Entry {
    facts::Unit unit;
    bool parsed = true;
    std::vector<std::string> errors;
    std::string digest; // of the unit's binary encoding (factsDigest())
  };
  enum class Lookup { Hit, Miss, Stale, Rejected };
  // Thread-safe. Hit: `out` holds the unit's facts and parse outcome. Miss: no entry. Stale: an
  // input changed since. Rejected: the entry did not validate (`why` says how).
  Lookup lookup(const std::string &key, Entry &out, std::string &why);
  // Thread-safe. Keeps a unit's facts under `key`; written out with the next pack. False and
  // `error` when writing a pack failed (the run goes on without the cache).
  // `digest` receives the unit's factsDigest().
  bool store(const std::string &key, const CacheInputs &inputs, const facts::Unit &unit,
             bool parsed, const std::vector<std::string> &errors, std::string &digest,
             std::string &error);
  // Writes what is left, merges packs when there are too many or too old ones, removes packs of
  // other checkers and temporary files of interrupted runs once old. Idempotent.
  void finish();

  // What open() found that it could not use: damaged packs (reported on stderr) and packs of
  // another checker or cache format (silently left to age out).
  std::size_t damagedPacks() const { return Damaged; }
  std::size_t foreignPacks() const { return Foreign; }
  const std::string &directory() const { return Directory; }

  // Tuning, for tests: entries or seconds per pack written, packs tolerated before a merge.
  std::size_t entriesPerPack = 512;
  std::chrono::seconds secondsPerPack{5};
  std::size_t maxPacks = 8;

private:
  explicit FactsCache(std::string directory);
  struct Pack;
  struct Located {
    Pack *pack = nullptr;
    std::size_t item = 0; // index into the pack's entries
  };
  void readPacks();
  bool flushLocked(std::string &error);
  std::string currentDigest(const std::string &path);
  bool pairValid(Pack &pack, std::size_t pair);

  std::string Directory;
  std::mutex Lock;
  std::vector<std::unique_ptr<Pack>> Packs; // oldest first
  // Key -> its entries, newest first (kEntriesPerKey at most).
  llvm::StringMap<std::vector<Located>> Index;
  static constexpr std::size_t kEntriesPerKey = 3;
  Lookup lookupAt(const Located &at, Entry &out, std::string &why);
  std::size_t Damaged = 0, Foreign = 0;
  // Entries not yet written: their encoded bytes, the pack's table of (path, digest) pairs.
  std::vector<std::pair<std::string, std::string>> Pending; // key, entry bytes
  std::vector<std::pair<std::string, std::string>> PendingPairs;
  llvm::StringMap<std::uint32_t> PendingPairIds;
  std::chrono::steady_clock::time_point LastFlush;
  unsigned Written = 0;
  bool Finished = false;
  struct Memo {
    std::mutex lock;
    llvm::StringMap<std::string> digests;
  } Digests;
};

} // namespace afunix::check
