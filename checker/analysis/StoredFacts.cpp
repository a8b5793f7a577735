#include "StoredFacts.h"

#include "FactsIO.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <map>
#include <mutex>

namespace afunix::analysis {

namespace {

struct Stamp {
  std::uint64_t size = 0;
  std::int64_t mtime = 0;
};

std::optional<Stamp> stampOf(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status) || !llvm::sys::fs::is_regular_file(status))
    return std::nullopt;
  return Stamp{status.getSize(),
               std::chrono::duration_cast<std::chrono::nanoseconds>(
                   status.getLastModificationTime().time_since_epoch())
                   .count()};
}

std::string lineDigest(llvm::StringRef line) {
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(line.data()), line.size()));
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(hash.high64),
                static_cast<unsigned long long>(hash.low64));
  return text;
}

// The unit lines of the stored-facts file at `path` that can be copied: by unit key, each line
// whose digest is still the one its header recorded (a line edited or damaged since is written
// afresh). `file` keeps the bytes.
llvm::StringMap<llvm::StringRef> reusableLines(const std::string &path,
                                               std::unique_ptr<llvm::MemoryBuffer> &file) {
  llvm::StringMap<llvm::StringRef> lines;
  // Read, not mapped: the file is replaced while its lines are copied.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false, /*IsVolatile=*/true);
  if (!buffer)
    return lines;
  file = std::move(*buffer);
  auto [first, rest] = file->getBuffer().split('\n');
  llvm::Expected<llvm::json::Value> header = llvm::json::parse(first);
  if (!header) {
    llvm::consumeError(header.takeError());
    return lines;
  }
  const llvm::json::Object *h = header->getAsObject();
  const llvm::json::Array *keys = h ? h->getArray("unit_keys") : nullptr;
  const llvm::json::Array *digests = h ? h->getArray("line_digests") : nullptr;
  if (!keys || !digests || keys->size() != digests->size() ||
      h->getInteger("version") != facts::kFormatVersion)
    return lines;
  for (std::size_t i = 0; i < keys->size() && !rest.empty(); ++i) {
    auto [line, next] = rest.split('\n');
    rest = next;
    std::optional<llvm::StringRef> key = (*keys)[i].getAsString();
    std::optional<llvm::StringRef> digest = (*digests)[i].getAsString();
    if (key && digest && !key->empty() && lineDigest(line) == *digest)
      lines.try_emplace(*key, line);
  }
  return lines;
}

} // namespace

bool StoredFacts::write(const std::string &path, const std::vector<const facts::Unit *> &units,
                        const std::string &fingerprint, std::string &error,
                        const std::string &content, const std::vector<std::string> &unitKeys) {
  // Never replace something that is not a plain file of ours (a symlink, a device, a FIFO).
  llvm::sys::fs::file_status existing;
  if (!llvm::sys::fs::status(path, existing, /*follow=*/false) &&
      existing.type() != llvm::sys::fs::file_type::regular_file) {
    error = path + ": exists and is not a regular file; facts not stored";
    return false;
  }
  llvm::SmallString<256> temporary;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(path + ".%%%%%%.tmp", fd, temporary)) {
    error = path + ": " + ec.message();
    return false;
  }
  // The unit lines first (copied or written), then the header that names them.
  std::unique_ptr<llvm::MemoryBuffer> previous;
  llvm::StringMap<llvm::StringRef> reusable;
  if (!unitKeys.empty())
    reusable = reusableLines(path, previous);
  std::string lines;
  std::vector<std::string> digests;
  {
    llvm::raw_string_ostream body(lines);
    for (std::size_t i = 0; i < units.size(); ++i) {
      std::size_t begin = lines.size();
      llvm::StringRef key = i < unitKeys.size() ? llvm::StringRef(unitKeys[i]) : "";
      auto it = key.empty() ? reusable.end() : reusable.find(key);
      if (it != reusable.end())
        body << it->second;
      else
        facts::writeUnit(*units[i], body);
      body.flush();
      if (!unitKeys.empty())
        digests.push_back(lineDigest(llvm::StringRef(lines).substr(begin)));
      body << "\n";
    }
  }
  previous.reset();
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    // One header line, then one unit per line, so a reader can skip what it does not need.
    llvm::json::OStream header(out);
    header.object([&] {
      header.attribute("format", "afunix-program");
      header.attribute("version", facts::kFormatVersion);
      header.attribute("fingerprint", fingerprint);
      if (!content.empty())
        header.attribute("content", content);
      header.attributeArray("stamps", [&] {
        for (const facts::Unit *unit : units) {
          std::optional<Stamp> stamp = stampOf(unit->mainFile);
          header.array([&] {
            header.value(unit->mainFile);
            header.value(static_cast<std::int64_t>(stamp ? stamp->size : 0));
            header.value(stamp ? stamp->mtime : 0);
          });
        }
      });
      if (!unitKeys.empty()) {
        header.attributeArray("unit_keys", [&] {
          for (std::size_t i = 0; i < units.size(); ++i)
            header.value(i < unitKeys.size() ? unitKeys[i] : "");
        });
        header.attributeArray("line_digests", [&] {
          for (const std::string &digest : digests)
            header.value(digest);
        });
      }
    });
    out << "\n" << lines;
    out.flush();
    if (out.has_error()) {
      error = path + ": " + out.error().message();
      out.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    error = path + ": " + ec.message();
    llvm::sys::fs::remove(temporary);
    return false;
  }
  return true;
}

bool StoredFacts::upToDate(const std::string &path, const std::string &content) {
  if (content.empty())
    return false;
  // The header line only (the stamps of every unit: a few bytes each); the file is mapped.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file)
    return false;
  llvm::StringRef all = (*file)->getBuffer();
  std::size_t end = all.find('\n');
  if (end == llvm::StringRef::npos)
    return false;
  llvm::Expected<llvm::json::Value> header = llvm::json::parse(all.take_front(end));
  if (!header) {
    llvm::consumeError(header.takeError());
    return false;
  }
  const llvm::json::Object *h = header->getAsObject();
  if (!h || h->getInteger("version") != facts::kFormatVersion ||
      h->getString("content") != std::optional<llvm::StringRef>(content))
    return false;
  const llvm::json::Array *stamps = h->getArray("stamps");
  if (!stamps)
    return false;
  for (const llvm::json::Value &v : *stamps) {
    const llvm::json::Array *entry = v.getAsArray();
    if (!entry || entry->size() != 3)
      return false;
    std::optional<Stamp> now = stampOf((*entry)[0].getAsString().value_or("").str());
    if (!now || static_cast<std::int64_t>(now->size) != (*entry)[1].getAsInteger().value_or(-1) ||
        now->mtime != (*entry)[2].getAsInteger().value_or(-1))
      return false;
  }
  return true;
}

std::shared_ptr<const StoredFacts> StoredFacts::read(const std::string &path, std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = path + ": " + buffer.getError().message();
    return nullptr;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  auto [first, rest] = text.split('\n');
  llvm::Expected<llvm::json::Value> header = llvm::json::parse(first);
  if (!header) {
    error = path + ": not a stored-facts file (" + llvm::toString(header.takeError()) + ")";
    return nullptr;
  }
  const llvm::json::Object *h = header->getAsObject();
  if (!h || h->getString("format") != std::optional<llvm::StringRef>("afunix-program") ||
      h->getInteger("version") != facts::kFormatVersion) {
    error = path + ": not a stored-facts file of format version " + std::to_string(facts::kFormatVersion);
    return nullptr;
  }
  auto stored = std::make_shared<StoredFacts>();
  stored->Fingerprint = h->getString("fingerprint").value_or("").str();
  std::map<std::string, Stamp> stamps;
  if (const llvm::json::Array *list = h->getArray("stamps"))
    for (const llvm::json::Value &v : *list)
      if (const llvm::json::Array *entry = v.getAsArray(); entry && entry->size() == 3)
        stamps[(*entry)[0].getAsString().value_or("").str()] = {
            static_cast<std::uint64_t>((*entry)[1].getAsInteger().value_or(-1)),
            (*entry)[2].getAsInteger().value_or(-1)};
  while (!rest.empty()) {
    auto [line, next] = rest.split('\n');
    rest = next;
    if (line.trim().empty())
      continue;
    llvm::Expected<facts::Unit> unit = facts::readUnit(line);
    if (!unit) {
      error = path + ": " + llvm::toString(unit.takeError());
      return nullptr;
    }
    std::optional<Stamp> now = stampOf(unit->mainFile);
    auto then = stamps.find(unit->mainFile);
    bool fresh = now && then != stamps.end() && now->size == then->second.size &&
                 now->mtime == then->second.mtime;
    stored->Fresh.push_back(fresh);
    stored->Stale += !fresh;
    stored->Units.push_back(std::move(*unit));
  }
  return stored;
}

std::vector<const facts::Unit *> StoredFacts::unitsExcept(const std::string &mainFile) const {
  std::vector<const facts::Unit *> out;
  for (std::size_t i = 0; i < Units.size(); ++i)
    if (Fresh[i] && Units[i].mainFile != mainFile)
      out.push_back(&Units[i]);
  return out;
}

namespace {
std::atomic<bool> EditorDiscovery{false};
} // namespace

void StoredFacts::enableForEditor() { EditorDiscovery = true; }

std::shared_ptr<const StoredFacts> StoredFacts::forFile(const std::string &mainFile,
                                                        const std::string &fingerprint) {
  if (!EditorDiscovery)
    return nullptr;
  // Where the facts are: beside the compile database that describes this file.
  std::string found;
  llvm::SmallString<256> dir(mainFile);
  llvm::sys::path::remove_filename(dir);
  while (!dir.empty() && found.empty()) {
    for (const char *sub : {"", "build"}) {
      llvm::SmallString<256> candidate(dir);
      llvm::sys::path::append(candidate, sub, kStoredFactsName);
      if (llvm::sys::fs::is_regular_file(candidate)) {
        found = std::string(candidate);
        break;
      }
    }
    llvm::StringRef parent = llvm::sys::path::parent_path(dir);
    if (parent == dir)
      break;
    dir = parent;
  }
  if (found.empty())
    return nullptr;
  struct Entry {
    Stamp stamp;
    std::shared_ptr<const StoredFacts> facts;
  };
  static std::mutex lock;
  static std::map<std::string, Entry> cache;
  std::optional<Stamp> stamp = stampOf(found);
  if (!stamp)
    return nullptr;
  std::lock_guard<std::mutex> guard(lock);
  Entry &entry = cache[found];
  if (!entry.facts || entry.stamp.size != stamp->size || entry.stamp.mtime != stamp->mtime) {
    std::string error;
    entry.facts = read(found, error);
    entry.stamp = *stamp;
    if (!entry.facts)
      llvm::errs() << "afunix: " << error << "; checking files on their own\n";
    else if (entry.facts->staleCount())
      llvm::errs() << "afunix: " << found << ": " << entry.facts->staleCount() << " of "
                   << entry.facts->size()
                   << " stored TUs changed since the last afunix-check -p run; they are left out "
                      "until it runs again\n";
  }
  if (entry.facts && entry.facts->fingerprint() != fingerprint)
    return nullptr; // extracted with other project options: not this program's facts
  return entry.facts;
}

} // namespace afunix::analysis
