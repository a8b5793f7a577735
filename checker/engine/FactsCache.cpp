#include "FactsCache.h"

#include "SafeFiles.h"

#include "InputFiles.h"

#include "FactsBinary.h"

#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/Version.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace afunix::check {

namespace {

using facts::getString;
using facts::getVarint;
using facts::putString;
using facts::putVarint;

// The layout of a pack; bumped when it changes (the facts inside have their own versions).
constexpr int kCacheVersion = 1;
constexpr char kPackMagic[8] = {'A', 'F', 'X', 'C', 'A', 'C', 'H', 'E'};
constexpr std::size_t kChecksumBytes = 16;
// Packs older than this are merged (so live entries never age out) or, when not ours, removed.
constexpr auto kMergeAge = std::chrono::hours(24 * 7);
constexpr auto kRemoveAge = std::chrono::hours(24 * 14);
// The table of input stamps (docs/facts-cache.md#input-stamps); bumped when its layout or the
// digest it records changes.
constexpr char kStampsMagic[8] = {'A', 'F', 'X', 'S', 'T', 'A', 'M', 'P'};
constexpr int kStampsVersion = 1;
constexpr char kStampsName[] = "input-stamps";
// The table of derived results (FactsCache::recall()); bumped when its layout changes.
constexpr char kDerivedMagic[8] = {'A', 'F', 'X', 'D', 'E', 'R', 'I', 'V'};
constexpr int kDerivedVersion = 1;
constexpr char kDerivedName[] = "derived-results";
// The table of results derived from single files (FactsCache::recallForFile()).
constexpr char kFileResultsMagic[8] = {'A', 'F', 'X', 'F', 'I', 'L', 'E', 'R'};
constexpr int kFileResultsVersion = 1;
constexpr char kFileResultsName[] = "file-results";

std::int64_t nanosecondsSinceEpoch(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

std::string hex128(llvm::XXH128_hash_t hash) {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(hash.high64),
                static_cast<unsigned long long>(hash.low64));
  return text;
}

std::string checksum(llvm::StringRef bytes) {
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  std::string raw(kChecksumBytes, '\0');
  std::memcpy(raw.data(), &hash.high64, 8);
  std::memcpy(raw.data() + 8, &hash.low64, 8);
  return raw;
}

// The GNU build-id of the running executable, as hex; "" when it has none.
std::string ownBuildId() {
  std::string id;
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) -> int {
        auto &out = *static_cast<std::string *>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &header = info->dlpi_phdr[i];
          if (header.p_type != PT_NOTE)
            continue;
          const char *note = reinterpret_cast<const char *>(info->dlpi_addr + header.p_vaddr);
          const char *end = note + header.p_memsz;
          while (note + sizeof(ElfW(Nhdr)) <= end) {
            const auto *n = reinterpret_cast<const ElfW(Nhdr) *>(note);
            const char *name = note + sizeof(ElfW(Nhdr));
            const char *desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
              for (unsigned b = 0; b < n->n_descsz; ++b) {
                char pair[3];
                std::snprintf(pair, sizeof pair, "%02x", static_cast<unsigned char>(desc[b]));
                out += pair;
              }
              return 1;
            }
            note = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return 1; // the first object is the executable itself
      },
      &id);
  return id;
}

std::chrono::system_clock::time_point modified(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return std::chrono::system_clock::now();
  return status.getLastModificationTime();
}

// The inside of one entry, decoded.
struct Body {
  bool parsed = true;
  std::vector<std::string> errors;
  std::vector<std::uint32_t> pairs;
  llvm::StringRef facts;
};

bool decodeBody(llvm::StringRef in, Body &body) {
  std::uint64_t parsed = 0, count = 0;
  if (!getVarint(in, parsed) || parsed > 1 || !getVarint(in, count) || count > in.size())
    return false;
  body.parsed = parsed == 1;
  for (std::uint64_t i = 0; i < count; ++i) {
    llvm::StringRef error;
    if (!getString(in, error))
      return false;
    body.errors.push_back(error.str());
  }
  if (!getVarint(in, count) || count > in.size())
    return false;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t pair = 0;
    if (!getVarint(in, pair) || pair > UINT32_MAX)
      return false;
    body.pairs.push_back(static_cast<std::uint32_t>(pair));
  }
  return getString(in, body.facts) && in.empty();
}

void encodeBody(std::string &out, bool parsed, const std::vector<std::string> &errors,
                const std::vector<std::uint32_t> &pairs, llvm::StringRef facts) {
  putVarint(out, parsed ? 1 : 0);
  putVarint(out, errors.size());
  for (const std::string &e : errors)
    putString(out, e);
  putVarint(out, pairs.size());
  for (std::uint32_t p : pairs)
    putVarint(out, p);
  putString(out, facts);
}

// A pack's bytes from its pairs and its entries (key, body).
std::string encodePack(const std::vector<std::pair<std::string, std::string>> &pairs,
                       const std::vector<std::pair<std::string, std::string>> &entries) {
  std::string out(kPackMagic, sizeof kPackMagic);
  putVarint(out, kCacheVersion);
  putString(out, checkerIdentity());
  putVarint(out, pairs.size());
  for (const auto &[path, digest] : pairs) {
    putString(out, path);
    putString(out, digest);
  }
  out += checksum(out);
  putVarint(out, entries.size());
  for (const auto &[key, body] : entries) {
    std::size_t begin = out.size();
    putString(out, key);
    putString(out, body);
    out += checksum(llvm::StringRef(out).substr(begin));
  }
  return out;
}

} // namespace

struct FactsCache::Pack {
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> bytes;
  std::vector<std::pair<std::string, std::string>> pairs; // path, digest
  std::vector<std::uint8_t> pairState;                    // 0 unknown, 1 unchanged, 2 changed
  struct Item {
    std::string key;
    std::size_t begin, size; // body within bytes
    std::string sum;         // its checksum as stored
    std::size_t sumBegin;    // the bytes the checksum covers start here
  };
  std::vector<Item> items;
  std::chrono::system_clock::time_point mtime;
  bool damaged = false;
};

std::string fileDigest(llvm::StringRef bytes) {
  return hex128(llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size())));
}

std::string factsDigest(llvm::StringRef encoded) { return fileDigest(encoded); }

const std::string &checkerIdentity() {
  static const std::string identity = [] {
    std::string build = ownBuildId();
    if (build.empty()) {
      // No build-id (a linker told not to write one): the executable's size and time stand in.
      llvm::sys::fs::file_status status;
      if (!llvm::sys::fs::status("/proc/self/exe", status))
        build = std::to_string(status.getSize()) + "@" +
                std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   status.getLastModificationTime().time_since_epoch())
                                   .count());
    }
    return std::string("afunix-check ") + AFUNIX_VERSION + " build " + build + "; " +
           clang::getClangFullVersion() + "; facts format " +
           std::to_string(facts::kFormatVersion) + ", binary layout " +
           std::to_string(facts::kBinaryLayoutVersion) + ", cache format " +
           std::to_string(kCacheVersion);
  }();
  return identity;
}

CacheInputs inputsOf(const clang::SourceManager &sources) {
  CacheInputs inputs;
  clang::FileManager &files = sources.getFileManager();
  for (auto it = sources.fileinfo_begin(); it != sources.fileinfo_end(); ++it) {
    llvm::SmallString<256> path(it->first.getName());
    files.makeAbsolutePath(path);
    // Not `..`: the path must open the same file later, and /lib/gcc/../../.. may cross a
    // symlink (/lib -> usr/lib) that a lexical `..` would not follow.
    llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/false);
    // A file whose bytes were never read (only looked up) still decided the parse by existing.
    std::optional<llvm::MemoryBufferRef> buffer = it->second->getBufferIfLoaded();
    inputs.emplace_back(std::string(path), buffer ? fileDigest(buffer->getBuffer()) : "exists");
  }
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  return inputs;
}

FactsCache::FactsCache(std::string directory)
    : Directory(std::move(directory)), LastFlush(std::chrono::steady_clock::now()),
      RunStart(nanosecondsSinceEpoch(std::chrono::system_clock::now())) {
  llvm::SmallString<256> stamps(Directory);
  llvm::sys::path::append(stamps, kStampsName);
  StampsPath = std::string(stamps);
}

std::optional<FactsCache::Stamp> FactsCache::stampOf(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  Stamp stamp;
  stamp.device = static_cast<std::uint64_t>(st.st_dev);
  stamp.inode = static_cast<std::uint64_t>(st.st_ino);
  stamp.size = static_cast<std::uint64_t>(st.st_size);
  stamp.mtime = std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  stamp.ctime = std::int64_t(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  return stamp;
}

bool FactsCache::reliable(const Stamp &stamp, std::int64_t runStart) {
  // A write after the stamp was taken sets the change time (which no user can set) to the
  // kernel's coarse clock, rounded down to the file system's granularity: at least
  // runStart - kRacyMarginNs. A stamp changed before that can therefore not survive a write; one
  // changed later might (racy git), and is not recorded: the file is read and hashed on each run
  // until one that starts long enough after its last change records it. The modification time
  // is held to the same bound for file systems that keep no change time of their own.
  std::int64_t bound = runStart - kRacyMarginNs;
  return stamp.ctime < bound && stamp.mtime < bound;
}

namespace {

// The cache's own tables beside the packs (input stamps, derived results): one file each, read
// whole (a table another run renames into place meanwhile is a whole other table) and written
// whole by a rename, so concurrent runs each replace it with a table that is right about all it
// holds; the last one wins, and what it lacks is only done again. Layout: magic, version, the
// checker's identity when `identity` (another build's table is replaced, not read), the body,
// a checksum of all before it.
struct TableFormat {
  const char *magic; // 8 bytes
  int version;
  bool identity;
};
constexpr TableFormat kStampsTable{kStampsMagic, kStampsVersion, false};
constexpr TableFormat kDerivedTable{kDerivedMagic, kDerivedVersion, true};
constexpr TableFormat kFileResultsTable{kFileResultsMagic, kFileResultsVersion, true};

// Reads the table at `path` into its owner: `parse` takes the body (between the header and the
// checksum) and says whether it was whole. True when the table is to be written anew: not ours to
// read (reported), of another layout or build (silently), or damaged (reported, with what the
// damage costs).
bool loadTable(const std::string &path, const TableFormat &format, llvm::StringRef damageCost,
               llvm::function_ref<bool(llvm::StringRef)> parse) {
  if (!llvm::sys::fs::exists(path))
    return false; // none yet
  std::string why;
  std::unique_ptr<llvm::MemoryBuffer> file =
      analysis::readInputFile(path, analysis::kMaxOwnFileBytes, why);
  if (!file) {
    // Not ours to read (a FIFO, a device, too large): the table is written anew beside it (a
    // rename replaces the name, never what it named).
    llvm::errs() << "afunix-check: warning: facts cache: " << why << "; not used\n";
    return true;
  }
  llvm::StringRef all = file->getBuffer();
  bool whole = all.size() >= kChecksumBytes &&
               all.take_back(kChecksumBytes) == checksum(all.drop_back(kChecksumBytes));
  llvm::StringRef body = all.drop_back(std::min(all.size(), kChecksumBytes));
  std::uint64_t version = 0;
  whole = whole && body.consume_front(llvm::StringRef(format.magic, 8)) && getVarint(body, version);
  if (whole) {
    llvm::StringRef identity;
    if (version != static_cast<std::uint64_t>(format.version) ||
        (format.identity && (!getString(body, identity) || identity != checkerIdentity())))
      return true; // another layout or build: replaced by this run's
    if (parse(body))
      return false;
  }
  llvm::errs() << "afunix-check: warning: facts cache " << path << " is damaged; " << damageCost
               << "\n";
  return true;
}

// A file's stamp in a table: device, inode, size, modification and change times.
void putStamp(std::string &out, const FactsCache::Stamp &stamp) {
  putVarint(out, stamp.device);
  putVarint(out, stamp.inode);
  putVarint(out, stamp.size);
  putVarint(out, static_cast<std::uint64_t>(stamp.mtime));
  putVarint(out, static_cast<std::uint64_t>(stamp.ctime));
}

bool getStamp(llvm::StringRef &in, FactsCache::Stamp &stamp) {
  std::uint64_t mtime = 0, ctime = 0;
  if (!getVarint(in, stamp.device) || !getVarint(in, stamp.inode) || !getVarint(in, stamp.size) ||
      !getVarint(in, mtime) || !getVarint(in, ctime))
    return false;
  stamp.mtime = static_cast<std::int64_t>(mtime);
  stamp.ctime = static_cast<std::int64_t>(ctime);
  return true;
}

std::string tableHeader(const TableFormat &format) {
  std::string out(format.magic, 8);
  putVarint(out, format.version);
  if (format.identity)
    putString(out, checkerIdentity());
  return out;
}

void writeTable(const std::string &path, std::string bytes) {
  bytes += checksum(bytes);
  std::string error;
  if (!writeOwnFileAtomically(path, bytes, error))
    llvm::errs() << "afunix-check: warning: facts cache: " << error << "\n";
}

} // namespace

void FactsCache::readStamps() {
  // Damaged: no stamp is trusted, every input is read and hashed, and the table is rewritten.
  StampsChanged |= loadTable(StampsPath, kStampsTable, "the files it described are read again",
                             [&](llvm::StringRef in) {
    std::uint64_t count = 0;
    bool ok = getVarint(in, count) && count <= in.size();
    llvm::StringMap<StampRecord> records;
    for (std::uint64_t i = 0; i < count && ok; ++i) {
      llvm::StringRef path, digest;
      Stamp stamp;
      ok = getString(in, path) && getStamp(in, stamp) && getString(in, digest);
      if (ok)
        records[path] = StampRecord{stamp, digest.str()};
    }
    if (!ok || !in.empty())
      return false;
    Stamps = std::move(records);
    return true;
  });
}

void FactsCache::writeStamps() {
  std::string out;
  {
    std::lock_guard<std::mutex> guard(Digests.lock);
    if (!StampsChanged)
      return;
    StampsChanged = false;
    // Sorted: equal tables, equal bytes.
    std::vector<const llvm::StringMapEntry<StampRecord> *> records;
    for (const auto &record : Stamps)
      records.push_back(&record);
    std::sort(records.begin(), records.end(),
              [](const auto *a, const auto *b) { return a->getKey() < b->getKey(); });
    out = tableHeader(kStampsTable);
    putVarint(out, records.size());
    for (const auto *record : records) {
      putString(out, record->getKey());
      putStamp(out, record->getValue().stamp);
      putString(out, record->getValue().digest);
    }
  }
  writeTable(StampsPath, std::move(out));
}

void FactsCache::readDerived() {
  Derived.read = true;
  Derived.changed |= loadTable(Directory + "/" + kDerivedName, kDerivedTable,
                               "its results are derived again", [&](llvm::StringRef in) {
    std::uint64_t count = 0;
    bool ok = getVarint(in, count) && count <= in.size();
    for (std::uint64_t i = 0; i < count && ok; ++i) {
      llvm::StringRef key, value;
      ok = getString(in, key) && getString(in, value);
      if (ok && Derived.values.try_emplace(key, value.str()).second)
        Derived.order.push_back(key.str());
    }
    if (ok && in.empty())
      return true;
    Derived.values.clear();
    Derived.order.clear();
    return false;
  });
}

std::optional<std::string> FactsCache::recall(llvm::StringRef key) {
  std::lock_guard<std::mutex> guard(Derived.lock);
  if (!Derived.read)
    readDerived();
  auto it = Derived.values.find(key);
  if (it == Derived.values.end())
    return std::nullopt;
  // Used again: kept when the table is cut to its newest entries.
  auto at = std::find(Derived.order.begin(), Derived.order.end(), key);
  if (at != Derived.order.begin()) {
    std::rotate(Derived.order.begin(), at, at + 1);
    Derived.changed = true;
  }
  return it->second;
}

void FactsCache::remember(llvm::StringRef key, std::string value) {
  std::lock_guard<std::mutex> guard(Derived.lock);
  if (!Derived.read)
    readDerived();
  auto [it, fresh] = Derived.values.try_emplace(key, std::move(value));
  if (!fresh)
    return; // the same key derives the same value
  Derived.order.insert(Derived.order.begin(), key.str());
  Derived.changed = true;
}

void FactsCache::writeDerived() {
  std::string out;
  {
    std::lock_guard<std::mutex> guard(Derived.lock);
    if (!Derived.changed)
      return;
    Derived.changed = false;
    out = tableHeader(kDerivedTable);
    std::size_t count = std::min(Derived.order.size(), kMaxDerived);
    putVarint(out, count);
    for (std::size_t i = 0; i < count; ++i) {
      putString(out, Derived.order[i]);
      putString(out, Derived.values[Derived.order[i]]);
    }
  }
  writeTable(Directory + "/" + kDerivedName, std::move(out));
}

namespace {

std::string fileResultKey(llvm::StringRef kind, const std::string &path) {
  return kind.str() + '\0' + path;
}

} // namespace

void FactsCache::readFileResults() {
  FileResults.read = true;
  FileResults.changed |= loadTable(Directory + "/" + kFileResultsName, kFileResultsTable,
                                   "the files it described are read again", [&](llvm::StringRef in) {
    std::uint64_t count = 0;
    bool ok = getVarint(in, count) && count <= in.size();
    for (std::uint64_t i = 0; i < count && ok; ++i) {
      llvm::StringRef key, value;
      FileResultTable::Result result;
      ok = getString(in, key) && getStamp(in, result.stamp) && getString(in, value);
      if (!ok)
        break;
      result.value = value.str();
      FileResults.results.try_emplace(key, std::move(result));
    }
    if (ok && in.empty())
      return true;
    FileResults.results.clear();
    return false;
  });
}

std::optional<std::string> FactsCache::recallForFile(const std::string &path, llvm::StringRef kind,
                                                     const Stamp &stamp) {
  std::lock_guard<std::mutex> guard(FileResults.lock);
  if (!FileResults.read)
    readFileResults();
  auto it = FileResults.results.find(fileResultKey(kind, path));
  if (it == FileResults.results.end() || !(it->second.stamp == stamp) ||
      !reliable(stamp, RunStart))
    return std::nullopt;
  it->second.used = true;
  return it->second.value;
}

void FactsCache::rememberForFile(const std::string &path, llvm::StringRef kind, const Stamp &stamp,
                                 std::string value) {
  if (!reliable(stamp, RunStart))
    return; // changed too recently for its stamp to stand for its bytes
  std::lock_guard<std::mutex> guard(FileResults.lock);
  if (!FileResults.read)
    readFileResults();
  FileResultTable::Result &result = FileResults.results[fileResultKey(kind, path)];
  result.stamp = stamp;
  result.value = std::move(value);
  result.used = true;
  FileResults.changed = true;
}

void FactsCache::writeFileResults() {
  std::string out;
  {
    std::lock_guard<std::mutex> guard(FileResults.lock);
    if (!FileResults.changed)
      return;
    FileResults.changed = false;
    // Sorted, this run's first when the table must be cut: equal tables, equal bytes.
    std::vector<const llvm::StringMapEntry<FileResultTable::Result> *> results;
    for (const auto &result : FileResults.results)
      results.push_back(&result);
    std::sort(results.begin(), results.end(), [](const auto *a, const auto *b) {
      if (a->getValue().used != b->getValue().used)
        return a->getValue().used;
      return a->getKey() < b->getKey();
    });
    if (results.size() > kMaxFileResults)
      results.resize(kMaxFileResults);
    out = tableHeader(kFileResultsTable);
    putVarint(out, results.size());
    for (const auto *result : results) {
      putString(out, result->getKey());
      putStamp(out, result->getValue().stamp);
      putString(out, result->getValue().value);
    }
  }
  writeTable(Directory + "/" + kFileResultsName, std::move(out));
}

FactsCache::~FactsCache() { finish(); }

namespace {

// The tag that marks a directory as a facts cache: what backup tools look for, and what tells
// afunix-check the directory is its own.
constexpr char kCacheTag[] =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by afunix-check (facts cache).\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n";

} // namespace

FactsCache::Adoption FactsCache::adoptable(const std::string &directory, std::string &why) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(directory, status))
    return Adoption::Create;
  if (status.type() != llvm::sys::fs::file_type::directory_file) {
    why = directory + ": not a directory";
    return Adoption::Refuse;
  }
  llvm::SmallString<256> tag(directory);
  llvm::sys::path::append(tag, "CACHEDIR.TAG");
  std::string text, ignored;
  // Ours: our tag, or the start of it (another run is writing it this moment: a concurrent run
  // on a new cache sees the file before its bytes).
  if (analysis::readInputFile(std::string(tag), 4096, text, ignored))
    return llvm::StringRef(text).starts_with(kCacheTag) ||
                   llvm::StringRef(kCacheTag).starts_with(text)
               ? Adoption::Ours
               : Adoption::Refuse;
  std::error_code ec;
  llvm::sys::fs::directory_iterator it(directory, ec);
  if (!ec && it == llvm::sys::fs::directory_iterator())
    return Adoption::Create; // empty: made ours
  why = directory + ": not a facts cache of afunix-check (it holds other files and no "
                    "CACHEDIR.TAG written by afunix-check); give an empty or new directory";
  return Adoption::Refuse;
}

std::unique_ptr<FactsCache> FactsCache::open(const std::string &directory, std::string &error) {
  // Only a directory that is new, empty or marked by afunix-check: the cache writes and removes
  // files by name (pack-*, input-stamps), and a user's files of those names are not its own.
  std::string why;
  Adoption adoption = adoptable(directory, why);
  if (adoption == Adoption::Refuse) {
    error = "facts cache " + why;
    return nullptr;
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
    error = "facts cache " + directory + ": " + ec.message();
    return nullptr;
  }
  if (adoption == Adoption::Create) {
    // O_EXCL: a tag another run wrote meanwhile stays; O_NOFOLLOW: never written through a link.
    llvm::SmallString<256> tag(directory);
    llvm::sys::path::append(tag, "CACHEDIR.TAG");
    int fd = ::open(tag.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
      out << kCacheTag;
    } else if (errno != EEXIST) {
      error = "facts cache " + std::string(tag) + ": " + std::strerror(errno);
      return nullptr;
    }
  }
  std::unique_ptr<FactsCache> cache(new FactsCache(directory));
  cache->readStamps();
  cache->readPacks();
  return cache;
}

void FactsCache::readPacks() {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(Directory, ec), end; !ec && it != end; it.increment(ec))
    if (llvm::StringRef name = llvm::sys::path::filename(it->path());
        name.starts_with("pack-") && name.ends_with(".pack"))
      names.push_back(it->path());
  std::sort(names.begin(), names.end()); // names start with the time they were written
  std::set<std::string> loaded;
  for (const auto &pack : Packs)
    loaded.insert(pack->path);
  std::set<std::string> &unreadable = Unreadable;
  for (const std::string &path : Unreadable)
    loaded.insert(path);
  for (const std::string &path : names) {
    if (loaded.count(path))
      continue;
    if (!llvm::sys::fs::exists(path))
      continue; // merged away by another run since it was listed: its entries are misses
    // Packs are never rewritten in place (written whole and renamed): they may be mapped. A
    // name of ours that is not a regular file (a FIFO, a device) is not read, and not removed.
    std::string why;
    std::unique_ptr<llvm::MemoryBuffer> file =
        analysis::readInputFile(path, analysis::kMaxOwnFileBytes, why, /*mayMap=*/true);
    if (!file) {
      if (llvm::sys::fs::exists(path)) {
        llvm::errs() << "afunix-check: warning: facts cache: " << why << "; not used\n";
        unreadable.insert(path);
      }
      continue;
    }
    auto pack = std::make_unique<Pack>();
    pack->path = path;
    pack->bytes = std::move(file);
    pack->mtime = modified(path);
    llvm::StringRef all = pack->bytes->getBuffer(), in = all;
    std::uint64_t version = 0, count = 0;
    llvm::StringRef identity;
    if (!in.consume_front(llvm::StringRef(kPackMagic, sizeof kPackMagic)) || !getVarint(in, version) ||
        version != kCacheVersion || !getString(in, identity) || identity != checkerIdentity()) {
      ++Foreign; // another cache format or another afunix-check: not ours to read
      continue;
    }
    bool damaged = !getVarint(in, count) || count > in.size();
    for (std::uint64_t i = 0; i < count && !damaged; ++i) {
      llvm::StringRef path, digest;
      damaged = !getString(in, path) || !getString(in, digest);
      pack->pairs.emplace_back(path.str(), digest.str());
    }
    std::size_t headerEnd = all.size() - in.size();
    damaged = damaged || in.size() < kChecksumBytes ||
              in.take_front(kChecksumBytes) != checksum(all.take_front(headerEnd));
    if (!damaged) {
      in = in.drop_front(kChecksumBytes);
      damaged = !getVarint(in, count) || count > in.size();
    }
    for (std::uint64_t i = 0; i < count && !damaged; ++i) {
      std::size_t begin = all.size() - in.size();
      llvm::StringRef key, body;
      damaged = !getString(in, key) || !getString(in, body) || in.size() < kChecksumBytes;
      if (damaged)
        break;
      Pack::Item item{key.str(), static_cast<std::size_t>(body.data() - all.data()), body.size(),
                      in.take_front(kChecksumBytes).str(), begin};
      in = in.drop_front(kChecksumBytes);
      // Every entry's checksum now, not only when it is looked up: a damaged entry no run needs
      // would otherwise keep its pack forever (the merge that drops it needs the damage known).
      // Hashing costs a fraction of reading the pack.
      if (checksum(all.slice(item.sumBegin, item.begin + item.size)) != item.sum) {
        damaged = true;
        break;
      }
      pack->items.push_back(std::move(item));
    }
    damaged = damaged || !in.empty();
    if (damaged) {
      // The entries before the damage are still used (each checked again on lookup); the pack
      // goes at this run's merge.
      pack->damaged = true;
      ++Damaged;
      llvm::errs() << "afunix-check: warning: facts cache " << path
                   << " is damaged; the files it held are parsed again\n";
    }
    pack->pairState.assign(pack->pairs.size(), 0);
    for (std::size_t i = 0; i < pack->items.size(); ++i) {
      // Newest first; a few older ones kept for a file restored to bytes it had before.
      std::vector<Located> &slots = Index[pack->items[i].key];
      Located at{pack.get(), i};
      auto newer = [&](const Located &a) { return a.pack->path > pack->path; };
      slots.insert(std::find_if_not(slots.begin(), slots.end(), newer), at);
      if (slots.size() > kEntriesPerKey)
        slots.pop_back();
    }
    Packs.push_back(std::move(pack));
  }
}

std::string FactsCache::keyOf(const CompileJob &job, const std::string &fingerprint) const {
  // Fields separated by a byte no path or argument holds, so no two jobs hash the same text.
  std::string text = checkerIdentity();
  auto add = [&](llvm::StringRef part) {
    text += '\0';
    text += part;
  };
  add(fingerprint);
  add(job.directory);
  add(job.file);
  add(std::to_string(job.argv.size()));
  for (const std::string &arg : job.argv)
    add(arg);
  return fileDigest(text);
}

std::string FactsCache::currentDigest(const std::string &path) {
  {
    std::lock_guard<std::mutex> guard(Digests.lock);
    auto it = Digests.digests.find(path);
    if (it != Digests.digests.end())
      return it->second;
  }
  // The stamp first: when it is the one recorded with a digest, that digest is the file's.
  std::optional<Stamp> before = stampOf(path);
  if (before) {
    std::lock_guard<std::mutex> guard(Digests.lock);
    // Another worker may have read the file meanwhile: it recorded the digest and the stamp
    // together, so the digest is taken from it, not counted as known by a stamp of this run.
    if (auto done = Digests.digests.find(path); done != Digests.digests.end())
      return done->second;
    auto it = Stamps.find(path);
    if (it != Stamps.end() && it->second.stamp == *before) {
      ++ByStamp;
      return Digests.digests.try_emplace(path, it->second.digest).first->second;
    }
  }
  // A regular file only: an input replaced by a FIFO or a device has no digest (the entry is
  // stale), and is never read here.
  std::string digest, ignored;
  if (std::unique_ptr<llvm::MemoryBuffer> buffer =
          analysis::readInputFile(path, analysis::kMaxOwnFileBytes, ignored))
    digest = fileDigest(buffer->getBuffer());
  ++Read;
  // Recorded when the stamp was taken before the read, is the same after it, and is reliable():
  // the bytes hashed are then the bytes any later run finds under that stamp.
  std::optional<Stamp> after = before ? stampOf(path) : std::nullopt;
  bool record = !digest.empty() && after && *after == *before && reliable(*before, RunStart);
  std::lock_guard<std::mutex> guard(Digests.lock);
  auto it = Stamps.find(path);
  if (record) {
    Stamps[path] = StampRecord{*before, digest};
    StampsChanged = true;
  } else if (it != Stamps.end()) {
    Stamps.erase(it); // its stamp is no longer the file's
    StampsChanged = true;
  }
  return Digests.digests.try_emplace(path, digest).first->second;
}

bool FactsCache::pairValid(Pack &pack, std::size_t pair) {
  {
    std::lock_guard<std::mutex> guard(Lock);
    if (pack.pairState[pair])
      return pack.pairState[pair] == 1;
  }
  const auto &[path, digest] = pack.pairs[pair];
  bool valid = digest == "exists" ? llvm::sys::fs::exists(path) : currentDigest(path) == digest;
  std::lock_guard<std::mutex> guard(Lock);
  pack.pairState[pair] = valid ? 1 : 2;
  return valid;
}

FactsCache::Lookup FactsCache::lookup(const std::string &key, Entry &out, std::string &why,
                                      bool withInputs) {
  std::vector<Located> candidates;
  {
    std::lock_guard<std::mutex> guard(Lock);
    auto it = Index.find(key);
    if (it == Index.end())
      return Lookup::Miss;
    candidates = it->second;
  }
  // The newest entry whose inputs are the files as they are now.
  Lookup result = Lookup::Stale;
  for (const Located &at : candidates) {
    Lookup found = lookupAt(at, out, why, withInputs);
    if (found == Lookup::Hit)
      return found;
    if (found == Lookup::Rejected) {
      result = found;
      std::lock_guard<std::mutex> guard(Lock);
      if (!at.pack->damaged) {
        at.pack->damaged = true; // merged away at the end of the run, not kept
        ++Damaged;
      }
      auto &slots = Index[key];
      llvm::erase_if(slots, [&](const Located &l) { return l.pack == at.pack && l.item == at.item; });
    }
  }
  return result;
}

FactsCache::Lookup FactsCache::lookupAt(const Located &at, Entry &out, std::string &why,
                                        bool withInputs) {
  Pack &pack = *at.pack;
  llvm::StringRef all = pack.bytes->getBuffer();
  const Pack::Item &item = pack.items[at.item];
  if (checksum(all.slice(item.sumBegin, item.begin + item.size)) != item.sum) {
    why = pack.path + ": an entry's checksum does not match (damaged)";
    return Lookup::Rejected;
  }
  Body body;
  if (!decodeBody(all.substr(item.begin, item.size), body)) {
    why = pack.path + ": an entry is malformed";
    return Lookup::Rejected;
  }
  for (std::uint32_t pair : body.pairs) {
    if (pair >= pack.pairs.size()) {
      why = pack.path + ": an entry names an input the pack does not have";
      return Lookup::Rejected;
    }
    if (!pairValid(pack, pair))
      return Lookup::Stale;
  }
  llvm::Expected<facts::Unit> unit = facts::decodeUnit(body.facts);
  if (!unit) {
    why = pack.path + ": " + llvm::toString(unit.takeError());
    return Lookup::Rejected;
  }
  out.unit = std::move(*unit);
  out.inputs.clear();
  if (withInputs)
    for (std::uint32_t pair : body.pairs)
      out.inputs.push_back(pack.pairs[pair].first);
  out.digest = factsDigest(body.facts);
  out.parsed = body.parsed;
  out.errors = std::move(body.errors);
  return Lookup::Hit;
}

bool FactsCache::store(const std::string &key, const CacheInputs &inputs, const facts::Unit &unit,
                       bool parsed, const std::vector<std::string> &errors, std::string &digest,
                       std::string &error) {
  std::string facts = facts::encodeUnit(unit);
  digest = factsDigest(facts);
  // Each input's stamp, recorded once per run (memoised), so that the next run need not read it.
  // These are the files as they are now, not the bytes this parse read: the entry's own digests
  // are compared with them on lookup, as for any other entry.
  for (const auto &[path, inputDigest] : inputs)
    if (inputDigest != "exists")
      currentDigest(path);
  std::lock_guard<std::mutex> guard(Lock);
  if (Finished)
    return true;
  std::vector<std::uint32_t> pairs;
  pairs.reserve(inputs.size());
  for (const auto &[path, digest] : inputs) {
    std::string pairKey = path + '\0' + digest;
    auto [it, fresh] = PendingPairIds.try_emplace(pairKey, PendingPairs.size());
    if (fresh)
      PendingPairs.emplace_back(path, digest);
    pairs.push_back(it->second);
  }
  std::string body;
  encodeBody(body, parsed, errors, pairs, facts);
  Pending.emplace_back(key, std::move(body));
  if (Pending.size() >= entriesPerPack ||
      std::chrono::steady_clock::now() - LastFlush >= secondsPerPack)
    return flushLocked(error);
  return true;
}

bool FactsCache::flushLocked(std::string &error) {
  LastFlush = std::chrono::steady_clock::now();
  if (Pending.empty())
    return true;
  std::string bytes = encodePack(PendingPairs, Pending);
  Pending.clear();
  PendingPairs.clear();
  PendingPairIds.clear();
  char name[96];
  auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  std::snprintf(name, sizeof name, "pack-%020lld-%d-%u.pack", static_cast<long long>(now),
                static_cast<int>(getpid()), Written++);
  if (!writeOwnFileAtomically(Directory + "/" + name, bytes, error))
    return false;
  return true;
}

void FactsCache::finish() {
  std::lock_guard<std::mutex> guard(Lock);
  if (Finished)
    return;
  Finished = true;
  std::string error;
  if (!flushLocked(error))
    llvm::errs() << "afunix-check: warning: facts cache: " << error << "\n";
  writeStamps();
  writeDerived();
  writeFileResults();

  auto now = std::chrono::system_clock::now();
  // Temporary files of interrupted runs, and packs nobody here can read once they are old.
  std::error_code ec;
  std::set<std::string> known;
  for (const auto &pack : Packs)
    known.insert(pack->path);
  known.insert(Unreadable.begin(), Unreadable.end()); // not ours to remove
  for (llvm::sys::fs::directory_iterator it(Directory, ec), end; !ec && it != end; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    // Temporary files of ours only: packs, the stamp and result tables, the database notes.
    bool temporary = name.ends_with(".tmp") &&
                     (name.starts_with("pack-") || name.starts_with(kStampsName) ||
                      name.starts_with(kDerivedName) || name.starts_with(kFileResultsName) ||
                      name.starts_with("database-"));
    bool foreign = name.starts_with("pack-") && name.ends_with(".pack") && !known.count(it->path());
    auto age = now - modified(it->path());
    if ((temporary && age > std::chrono::hours(1)) || (foreign && age > kRemoveAge &&
                                                       Foreign > 0))
      llvm::sys::fs::remove(it->path());
  }

  // Merge this run's view of the cache into one pack when it has grown into many packs, holds
  // damage, or has packs old enough to age out: the newest entry per key, unless found stale.
  bool old = std::any_of(Packs.begin(), Packs.end(),
                         [&](const auto &p) { return now - p->mtime > kMergeAge; });
  if (Packs.size() + Written <= maxPacks && !Damaged && !old)
    return;
  // This run's own packs (and any another run wrote meanwhile) join the merge.
  readPacks();
  std::vector<std::pair<std::string, std::string>> pairs, entries;
  llvm::StringMap<std::uint32_t> pairIds;
  for (const auto &[key, slots] : Index)
    for (const Located &at : llvm::ArrayRef(slots).take_front(kEntriesPerKey - 1)) {
      Pack &pack = *at.pack;
      llvm::StringRef all = pack.bytes->getBuffer();
      const Pack::Item &item = pack.items[at.item];
      Body body;
      if (checksum(all.slice(item.sumBegin, item.begin + item.size)) != item.sum ||
          !decodeBody(all.substr(item.begin, item.size), body))
        continue; // damaged: rebuilt when next needed
      bool stalePair = false;
      std::vector<std::uint32_t> remapped;
      for (std::uint32_t pair : body.pairs) {
        if (pair >= pack.pairs.size() || pack.pairState[pair] == 2) {
          stalePair = true; // known changed this run: the entry is dead
          break;
        }
        const auto &[path, digest] = pack.pairs[pair];
        auto [it, fresh] = pairIds.try_emplace(path + '\0' + digest, pairs.size());
        if (fresh)
          pairs.emplace_back(path, digest);
        remapped.push_back(it->second);
      }
      if (stalePair)
        continue;
      std::string rewritten;
      encodeBody(rewritten, body.parsed, body.errors, remapped, body.facts);
      entries.emplace_back(key.str(), std::move(rewritten));
    }
  // Older entries first, as they were: the newest of a key stays the newest.
  std::reverse(entries.begin(), entries.end());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  char name[96];
  auto stamp = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::snprintf(name, sizeof name, "pack-%020lld-%d-%u.pack", static_cast<long long>(stamp),
                static_cast<int>(getpid()), Written++);
  if (!writeOwnFileAtomically(Directory + "/" + name, encodePack(pairs, entries), error)) {
    llvm::errs() << "afunix-check: warning: facts cache: " << error << "\n";
    return;
  }
  // Only the packs merged: another run may have written one since, which stays.
  for (const auto &pack : Packs)
    llvm::sys::fs::remove(pack->path);
}

} // namespace afunix::check
