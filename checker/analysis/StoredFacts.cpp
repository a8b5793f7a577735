#include "StoredFacts.h"

#include "FactsIO.h"
#include "InputFiles.h"

#include "llvm/ADT/STLExtras.h"
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
#include <set>

namespace afunix::analysis {

namespace {

using Stamp = StoredFacts::FileStamp;

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
  std::string why;
  file = readInputFile(path, kMaxOwnFileBytes, why);
  if (!file)
    return lines;
  auto [first, rest] = file->getBuffer().split('\n');
  std::optional<llvm::json::Value> header = parseJson(first, why);
  if (!header)
    return lines;
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
      // Every file a unit's facts come from (its main file, the headers its facts point into),
      // each once: a reader takes a unit only while all of them are as stamped.
      header.attributeArray("stamps", [&] {
        std::set<llvm::StringRef> done;
        auto stampOne = [&](const std::string &path) {
          if (!done.insert(path).second)
            return;
          std::optional<Stamp> stamp = stampOf(path);
          header.array([&] {
            header.value(path);
            header.value(static_cast<std::int64_t>(stamp ? stamp->size : 0));
            header.value(stamp ? stamp->mtime : 0);
          });
        };
        for (const facts::Unit *unit : units)
          stampOne(unit->mainFile);
        for (const facts::Unit *unit : units)
          for (const std::string &file : unit->files)
            stampOne(file);
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
  std::string why;
  std::unique_ptr<llvm::MemoryBuffer> file = readInputFile(path, kMaxOwnFileBytes, why);
  if (!file)
    return false;
  llvm::StringRef all = file->getBuffer();
  std::size_t end = all.find('\n');
  if (end == llvm::StringRef::npos)
    return false;
  std::optional<llvm::json::Value> header = parseJson(all.take_front(end), why);
  if (!header)
    return false;
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
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(path, kMaxOwnFileBytes, error);
  if (!buffer)
    return nullptr;
  llvm::StringRef text = buffer->getBuffer();
  auto [first, rest] = text.split('\n');
  std::string why;
  std::optional<llvm::json::Value> header = parseJson(first, why);
  if (!header) {
    error = path + ": not a stored-facts file (" + why + ")";
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
  if (const llvm::json::Array *list = h->getArray("stamps"))
    for (const llvm::json::Value &v : *list)
      if (const llvm::json::Array *entry = v.getAsArray(); entry && entry->size() == 3)
        stored->Stamps[(*entry)[0].getAsString().value_or("").str()] = {
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
    stored->Units.push_back(std::move(*unit));
  }
  return stored;
}

bool StoredFacts::fresh(const facts::Unit &unit, bool mainFileToo) const {
  // Its main file must have been stamped; each other file it names, when the writer stamped it.
  auto same = [&](const std::string &path, bool required) {
    auto then = Stamps.find(path);
    if (then == Stamps.end())
      return !required;
    std::optional<Stamp> now = stampOf(path);
    return now && now->size == then->second.size && now->mtime == then->second.mtime;
  };
  if (mainFileToo && !same(unit.mainFile, true))
    return false;
  for (const std::string &file : unit.files)
    if (file != unit.mainFile && !same(file, false))
      return false;
  return true;
}

std::vector<const facts::Unit *> StoredFacts::unitsExcept(const std::string &mainFile) const {
  std::vector<const facts::Unit *> out;
  for (const facts::Unit &unit : Units)
    if (unit.mainFile != mainFile && fresh(unit))
      out.push_back(&unit);
  return out;
}

std::optional<facts::Unit> StoredFacts::headerBodiesFor(const facts::Unit &editor) const {
  using facts::Id, facts::kNone;
  const facts::Unit *stored = nullptr;
  for (const facts::Unit &unit : Units)
    if (unit.mainFile == editor.mainFile)
      stored = &unit;
  // The main file may be edited (its facts are the editor's); the headers must be as parsed.
  if (!stored || !fresh(*stored, /*mainFileToo=*/false))
    return std::nullopt;
  Id mainFile = kNone;
  for (Id i = 0; i < stored->files.size(); ++i)
    if (stored->files[i] == stored->mainFile)
      mainFile = i;

  facts::Unit out = *stored;
  // Every body outside the main file: the editor's unit may define one too, with the body its
  // parse skipped (an instantiation of a skipped template body is empty), so whether it has one
  // says nothing; the link merges what both give of a body that was parsed.
  std::vector<bool> taken(out.functions.size());
  for (Id f = 0; f < out.functions.size(); ++f) {
    facts::Function &fn = out.functions[f];
    taken[f] = fn.defined && fn.file != mainFile;
    if (taken[f])
      continue;
    // Known by name only: what the editor says of it stands.
    facts::Function bare;
    bare.key = std::move(fn.key);
    bare.name = std::move(fn.name);
    bare.params = fn.params;
    bare.system = fn.system;
    bare.method = fn.method;
    fn = std::move(bare);
  }
  auto functionOfPlace = [&](Id place) {
    for (std::size_t steps = 0; place != kNone && steps <= out.places.size(); ++steps) {
      const facts::Place &p = out.places[place];
      if (p.function != kNone || p.base == kNone)
        return p.function;
      place = p.base;
    }
    return kNone;
  };
  auto keptSite = [&](Id site) {
    Id f = site == kNone ? kNone : out.sites[site].function;
    return f != kNone && taken[f];
  };
  // A place of a taken body, and none of a body the editor has.
  auto keptPlaces = [&](std::initializer_list<Id> places) {
    bool some = false;
    for (Id place : places) {
      Id f = functionOfPlace(place);
      if (f != kNone && !taken[f])
        return false;
      some |= f != kNone;
    }
    return some;
  };
  auto bySite = [&](auto &facts) {
    llvm::erase_if(facts, [&](const auto &fact) { return !keptSite(fact.site); });
  };
  bySite(out.creates);
  bySite(out.options);
  bySite(out.lifecycle);
  bySite(out.receives);
  bySite(out.payloads);
  bySite(out.received);
  bySite(out.sends);
  bySite(out.writes);
  bySite(out.limits);
  bySite(out.calls);
  bySite(out.callbacks);
  bySite(out.indirectCalls);
  llvm::erase_if(out.flows, [&](const facts::Flow &flow) {
    return flow.site != kNone ? !keptSite(flow.site) : !keptPlaces({flow.from, flow.to});
  });
  llvm::erase_if(out.points, [&](const facts::Points &points) { return !keptPlaces({points.place}); });
  llvm::erase_if(out.untracked, [&](Id place) { return !keptPlaces({place}); });
  out.services.clear();
  return out;
}

std::string StoredFacts::targetOf(const std::string &mainFile) const {
  for (const facts::Unit &unit : Units)
    if (unit.mainFile == mainFile)
      return unit.target;
  return "";
}

std::vector<std::string> StoredFacts::staleFiles() const {
  std::vector<std::string> out;
  for (const facts::Unit &unit : Units)
    if (!fresh(unit))
      out.push_back(unit.mainFile);
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
    std::vector<std::string> staleLogged; // what the log last said was stale
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
    entry.staleLogged.clear();
    if (!entry.facts)
      llvm::errs() << "afunix: " << error << "; checking files on their own\n";
  }
  if (entry.facts) {
    // Which stored units are stale is decided now (a file may have been saved since the last
    // check), and said whenever it changes: by name, as a partial afunix-check run says it.
    std::vector<std::string> stale = entry.facts->staleFiles();
    if (stale != entry.staleLogged) {
      entry.staleLogged = stale;
      if (!stale.empty()) {
        std::string names;
        for (std::size_t i = 0; i < stale.size() && i < 5; ++i)
          names += (i ? ", " : "") + stale[i];
        if (stale.size() > 5)
          names += ", ...";
        llvm::errs() << "afunix: " << found << ": " << stale.size() << " of "
                     << entry.facts->size()
                     << " stored TUs changed since the last afunix-check -p run (" << names
                     << "); their facts are left out until it runs again\n";
      }
    }
  }
  if (entry.facts && entry.facts->fingerprint() != fingerprint)
    return nullptr; // extracted with other project options: not this program's facts
  return entry.facts;
}

} // namespace afunix::analysis
