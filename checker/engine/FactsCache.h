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
// So that a warm run need not read and hash every header again, the cache also keeps a table of
// input stamps: for each file it read, its stat (device, inode, size, modification and change
// times in nanoseconds) and the digest of its bytes (git's index). A file whose stamp is the one
// recorded has the recorded digest and is not read; any other is read and hashed, as without the
// table. A stamp is recorded only when it is reliable: taken before the bytes were read and equal
// after, with change and modification times older than the start of the run by more than the
// coarsest file-time tick (racy git: a file changed again within the tick it was last changed in
// would keep its stamp). docs/facts-cache.md#input-stamps.
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

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
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

// xxHash3-128 of `bytes`, as kDigestChars hex digits.
std::string fileDigest(llvm::StringRef bytes);
inline constexpr std::size_t kDigestChars = 32;

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
  // Whether `directory` may be the cache: absent or empty (Create: made a cache, tagged), already
  // tagged by afunix-check (Ours), or anything else (Refuse, `why` says what): a directory of
  // the user's is never written into. Front ends ask before any work.
  enum class Adoption { Create, Ours, Refuse };
  static Adoption adoptable(const std::string &directory, std::string &why);
  ~FactsCache(); // finish()es

  // The entry key of a job: a digest of everything but the contents of the files it reads.
  std::string keyOf(const CompileJob &job, const std::string &extractionFingerprint) const;

  struct Entry {
    facts::Unit unit;
    bool parsed = true;
    std::vector<std::string> errors;
    std::string digest; // of the unit's binary encoding (factsDigest())
    std::vector<std::string> inputs; // the files its parse read, when asked for
  };
  enum class Lookup { Hit, Miss, Stale, Rejected };
  // Thread-safe. Hit: `out` holds the unit's facts and parse outcome. Miss: no entry. Stale: an
  // input changed since. Rejected: the entry did not validate (`why` says how).
  Lookup lookup(const std::string &key, Entry &out, std::string &why, bool withInputs = false);
  // Thread-safe. Keeps a unit's facts under `key`; written out with the next pack. False and
  // `error` when writing a pack failed (the run goes on without the cache).
  // `digest` receives the unit's factsDigest().
  bool store(const std::string &key, const CacheInputs &inputs, const facts::Unit &unit,
             bool parsed, const std::vector<std::string> &errors, std::string &digest,
             std::string &error);
  // Writes what is left, merges packs when there are too many or too old ones, removes packs of
  // other checkers and temporary files of interrupted runs once old. Idempotent.
  void finish();

  // Results derived from facts, by a key that digests everything they depend on (the facts of
  // every unit a prefilter round linked, for the names that matter in it): a warm run whose round
  // links the same facts as an earlier run's reads its outcome instead of linking again. Kept in
  // one small table (`derived-results`, the newest kMaxDerived entries), read on the first
  // recall(), written whole by rename at finish() when changed; a damaged table is reported and
  // dropped. Thread-safe.
  std::optional<std::string> recall(llvm::StringRef key);
  void remember(llvm::StringRef key, std::string value);
  static constexpr std::size_t kMaxDerived = 256;

  // What open() found that it could not use: damaged packs (reported on stderr) and packs of
  // another checker or cache format (silently left to age out).
  std::size_t damagedPacks() const { return Damaged; }
  std::size_t foreignPacks() const { return Foreign; }
  const std::string &directory() const { return Directory; }
  // Inputs checked this run: by their recorded stamp (not read), and read and hashed.
  std::size_t inputsByStamp() const { return ByStamp; }
  std::size_t inputsRead() const { return Read; }

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
  Lookup lookupAt(const Located &at, Entry &out, std::string &why, bool withInputs);
  std::size_t Damaged = 0, Foreign = 0;
  std::set<std::string> Unreadable; // names of packs that are not regular files: never read
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

public:
  // What stat says of a file: equal stamps, equal bytes, once the stamp is reliable.
  struct Stamp {
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t mtime = 0, ctime = 0; // nanoseconds since the epoch
    bool operator==(const Stamp &) const = default;
  };
  // The stamp of the file `path` names (symbolic links followed, as a read does); none when it
  // cannot be stat'ed or is not a regular file.
  static std::optional<Stamp> stampOf(const std::string &path);
  // Whether a file's stamp, taken in a run that started at `runStart` (nanoseconds since the
  // epoch), can stand for its bytes: no write after the stamp was taken can leave it unchanged.
  static bool reliable(const Stamp &stamp, std::int64_t runStart);
  // The margin reliable() keeps between a file's last change and the run's start: a file's times
  // come from the kernel's coarse clock (up to a tick, 1-10 ms, behind the real time) rounded to
  // the file system's granularity (1 ns on ext4, XFS, Btrfs, tmpfs; 1 s on ext3 and ext4 with
  // small inodes; 2 s on FAT).
  static constexpr std::int64_t kRacyMarginNs = 3'000'000'000;

  // Results derived from one file's bytes alone (the prefilter's scan of its text), by the file's
  // path, a `kind` (how it was derived) and its stamp: a later run takes them while the file's
  // stamp is the one recorded, as the input stamps stand for a file's digest. Remembered only
  // when `stamp` is reliable() (taken before the bytes were read, and equal after). Kept in one
  // table (`file-results`), read on first use, written whole by rename at finish() when changed.
  // Thread-safe.
  std::optional<std::string> recallForFile(const std::string &path, llvm::StringRef kind,
                                           const Stamp &stamp);
  void rememberForFile(const std::string &path, llvm::StringRef kind, const Stamp &stamp,
                       std::string value);
  static constexpr std::size_t kMaxFileResults = 500'000;

private:
  struct StampRecord {
    Stamp stamp;
    std::string digest;
  };
  void readStamps();
  void writeStamps();
  void readDerived();     // under Derived.lock
  void writeDerived();
  void readFileResults(); // under FileResults.lock
  void writeFileResults();
  struct FileResultTable {
    struct Result {
      Stamp stamp;
      std::string value;
      bool used = false; // recalled or remembered by this run: kept first when the table is cut
    };
    std::mutex lock;
    bool read = false, changed = false;
    llvm::StringMap<Result> results; // by kind, NUL, path
  } FileResults;
  struct DerivedTable {
    std::mutex lock;
    bool read = false, changed = false;
    // Key -> value, and the keys newest first (what a run used or made moves to the front).
    llvm::StringMap<std::string> values;
    std::vector<std::string> order;
  } Derived;
  std::string StampsPath;
  std::int64_t RunStart = 0;             // nanoseconds since the epoch, before anything was read
  llvm::StringMap<StampRecord> Stamps;   // guarded by Digests.lock
  bool StampsChanged = false;            // guarded by Digests.lock
  std::atomic<std::size_t> ByStamp{0}, Read{0};
};

} // namespace afunix::check
