#include "ShardFiles.h"

#include "Prefilter.h"

#include "FactsCache.h"
#include "SafeFiles.h"
#include "WholeProgram.h"

#include "FactsBinary.h"
#include "InputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace afunix::check {

namespace {

using facts::getString;
using facts::getVarint;
using facts::putString;
using facts::putVarint;

constexpr char kShardMagic[8] = {'A', 'F', 'X', 'S', 'H', 'A', 'R', 'D'};
// The layout of a shard file; bumped when it changes (the facts inside have their own versions).
// 2: whether the facts' paths are relative; 3: the command of each file the prefilter skipped;
// 4: each unit's outline (analysis::UnitOutline) before its facts.
constexpr int kShardVersion = 4;

// A unit's outline: what the link needs of every unit before it merges the first, so it decodes
// each unit's facts only when it merges them.
void putOutline(std::string &out, const analysis::UnitOutline &outline) {
  putVarint(out, outline.skipped ? 1 : 0);
  for (std::size_t count : {outline.places, outline.functions, outline.sites, outline.calls, outline.flows})
    putVarint(out, count);
  putVarint(out, outline.definitions.size());
  for (const auto &[key, file] : outline.definitions) {
    putString(out, key);
    putString(out, file);
  }
}

bool getOutline(llvm::StringRef &in, analysis::UnitOutline &outline) {
  std::uint64_t skipped = 0, definitions = 0;
  if (!getVarint(in, skipped) || skipped > 1)
    return false;
  outline.skipped = skipped == 1;
  for (std::size_t *count : {&outline.places, &outline.functions, &outline.sites, &outline.calls, &outline.flows}) {
    std::uint64_t value = 0;
    if (!getVarint(in, value) || value > in.size()) // every counted fact takes a byte of the facts
      return false;
    *count = value;
  }
  if (!getVarint(in, definitions) || definitions > in.size())
    return false;
  outline.definitions.resize(definitions);
  for (auto &[key, file] : outline.definitions)
    if (!getString(in, key) || !getString(in, file))
      return false;
  return true;
}

// `arg` with every path below the working directory relative to it ("-I/src/x/include" ->
// "-Iinclude" when run in /src/x): a command's bytes as the same command in another checkout.
std::string withoutWorkingDirectory(const std::string &arg) {
  if (llvm::sys::path::is_absolute(arg))
    return analysis::recordedPath(arg, true);
  const std::string &cwd = analysis::workingDirectory();
  std::string out = arg;
  for (std::size_t at; !cwd.empty() && (at = out.find(cwd + "/")) != std::string::npos;)
    out.erase(at, cwd.size() + 1);
  return out;
}

// A skipped file's command in a relative shard: the working directory wherever it occurs (the
// directory, the file, -I paths) as a marker the link replaces with its own (relocated()).
constexpr char kWorkingDirectoryMarker[] = "\x01";
std::string relocatable(const std::string &text) {
  const std::string &cwd = analysis::workingDirectory();
  std::string out = text;
  if (cwd.empty() || cwd == "/")
    return out;
  for (std::size_t at = 0; (at = out.find(cwd, at)) != std::string::npos;) {
    std::size_t end = at + cwd.size();
    if (end == out.size() || out[end] == '/') {
      out.replace(at, cwd.size(), kWorkingDirectoryMarker);
      at += 1;
    } else {
      at = end;
    }
  }
  return out;
}
std::string relocated(const std::string &text) {
  std::string out = text;
  for (std::size_t at = 0; (at = out.find(kWorkingDirectoryMarker, at)) != std::string::npos;) {
    out.replace(at, 1, analysis::workingDirectory());
    at += analysis::workingDirectory().size();
  }
  return out;
}

// Which database a slice was cut from: each file in database order with its command as the run
// adjusted it (arguments after `--` included) and its directory. Two databases that list the same
// files with other flags make other facts: their slices do not belong together. With relative
// paths, the file, directory and arguments as the facts name them: one file's database is the
// same in every checkout or sandbox (its shard's bytes too, so two copies count once at the link).
std::string databaseDigest(const std::vector<CompileJob> &jobs, bool relativePaths) {
  std::string text;
  auto add = [&](llvm::StringRef part) {
    text += part;
    text += '\0';
  };
  for (const CompileJob &job : jobs) {
    add(analysis::recordedPath(job.file, relativePaths));
    add(analysis::recordedPath(job.directory, relativePaths));
    add(std::to_string(job.argv.size()));
    for (const std::string &arg : job.argv)
      add(relativePaths ? withoutWorkingDirectory(arg) : arg);
  }
  return fileDigest(text);
}

std::string shardName(const ShardSpec &spec) {
  return "shard-" + std::to_string(spec.index) + "-of-" + std::to_string(spec.count) +
         kShardExtension;
}

struct Shard;
struct ShardUnit {
  const Shard *shard = nullptr; // the one it was read from
  std::size_t job = 0;
  std::string mainFile;
  FileOutcome outcome;
  analysis::UnitOutline outline;
  llvm::StringRef facts; // encoded (FactsBinary.h), in the shard's file; decoded when used
  // A file the slice skipped (facts::Unit::skipped): its command, for the link to parse it when
  // the other slices' facts make it matter. Named as the facts name files.
  std::string directory;            // absolute (relative shards: relocated to the link's directory)
  std::vector<std::string> argv;
};

struct Shard {
  std::string path, identity, fingerprint, database, checksum;
  std::uint64_t index = 0, count = 0, total = 0;
  bool relativePaths = false;
  std::vector<ShardUnit> units;
  std::unique_ptr<llvm::MemoryBuffer> file; // what the units' facts point into
};

// The facts of a unit read from `shard`, validated as they are decoded.
llvm::Expected<facts::Unit> decodeShardUnit(const ShardUnit &unit) {
  const Shard &shard = *unit.shard;
  llvm::Expected<facts::Unit> decoded = facts::decodeUnit(unit.facts);
  if (!decoded)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), shard.path + ": " + unit.mainFile +
                                                                       ": " + llvm::toString(decoded.takeError()));
  // The outline was written from these very facts: a unit that disagrees is damage.
  analysis::UnitOutline own = analysis::UnitOutline::of(*decoded);
  if (own.skipped != unit.outline.skipped || own.places != unit.outline.places ||
      own.functions != unit.outline.functions || own.sites != unit.outline.sites ||
      own.definitions.size() != unit.outline.definitions.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   shard.path + ": " + unit.mainFile + ": damaged shard file (its outline and facts differ)");
  return decoded;
}

bool readShard(const std::string &path, Shard &shard, std::string &error) {
  std::unique_ptr<llvm::MemoryBuffer> file =
      analysis::readInputFile(path, analysis::kMaxOwnFileBytes, error, /*mayMap=*/true);
  if (!file)
    return false;
  llvm::StringRef all = file->getBuffer(), in = all;
  auto damaged = [&](const std::string &why) {
    error = path + ": damaged shard file (" + why + ")";
    return false;
  };
  std::uint64_t version = 0;
  if (!in.consume_front(llvm::StringRef(kShardMagic, sizeof kShardMagic)))
    return damaged("not a shard file");
  if (!getVarint(in, version))
    return damaged("truncated");
  shard.file = std::move(file);
  if (version != kShardVersion) {
    error = path + ": a shard file of layout " + std::to_string(version) +
            "; this afunix-check reads layout " + std::to_string(kShardVersion);
    return false;
  }
  // The checksum first (the last 32 bytes: the digest of all before): nothing of a damaged
  // file is used.
  if (all.size() < sizeof kShardMagic + kDigestChars)
    return damaged("truncated");
  if (fileDigest(all.drop_back(kDigestChars)) != all.take_back(kDigestChars))
    return damaged("its checksum does not match");
  shard.checksum = all.take_back(kDigestChars).str();
  in = in.drop_back(kDigestChars);
  llvm::StringRef identity, fingerprint, database;
  std::uint64_t units = 0, relative = 0;
  shard.path = path;
  if (!getString(in, identity) || !getString(in, fingerprint) || !getVarint(in, shard.index) ||
      !getVarint(in, shard.count) || !getVarint(in, shard.total) || !getString(in, database) ||
      !getVarint(in, relative) || relative > 1 || !getVarint(in, units) || units > in.size())
    return damaged("truncated header");
  shard.relativePaths = relative == 1;
  shard.identity = identity.str();
  shard.fingerprint = fingerprint.str();
  shard.database = database.str();
  if (shard.count == 0 || shard.index == 0 || shard.index > shard.count)
    return damaged("slice " + std::to_string(shard.index) + " of " + std::to_string(shard.count));
  for (std::uint64_t i = 0; i < units; ++i) {
    ShardUnit unit;
    llvm::StringRef mainFile;
    std::uint64_t job = 0, parsed = 0, errors = 0;
    if (!getVarint(in, job) || job >= shard.total || !getString(in, mainFile) ||
        !getVarint(in, parsed) || parsed > 1 || !getVarint(in, errors) || errors > in.size())
      return damaged("unit " + std::to_string(i + 1));
    unit.job = job;
    unit.mainFile = mainFile.str();
    unit.outcome.file = unit.mainFile;
    unit.outcome.parsed = parsed == 1;
    for (std::uint64_t e = 0; e < errors; ++e) {
      llvm::StringRef text;
      if (!getString(in, text))
        return damaged("unit " + std::to_string(i + 1));
      unit.outcome.errors.push_back(text.str());
    }
    if (!getOutline(in, unit.outline) || !getString(in, unit.facts))
      return damaged("unit " + std::to_string(i + 1));
    unit.outcome.skipped = unit.outline.skipped;
    if (unit.outline.skipped) {
      llvm::StringRef directory;
      std::uint64_t args = 0;
      if (!getString(in, directory) || !getVarint(in, args) || args > in.size())
        return damaged("unit " + std::to_string(i + 1));
      unit.directory = relocated(directory.str());
      for (std::uint64_t a = 0; a < args; ++a) {
        llvm::StringRef arg;
        if (!getString(in, arg))
          return damaged("unit " + std::to_string(i + 1));
        unit.argv.push_back(relocated(arg.str()));
      }
    }
    shard.units.push_back(std::move(unit));
  }
  if (!in.empty())
    return damaged("bytes after the last unit");
  return true;
}

} // namespace

std::vector<ShardJob> sliceOf(const std::vector<CompileJob> &jobs, const ShardSpec &spec) {
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].file < jobs[b].file; });
  std::vector<ShardJob> slice;
  for (std::size_t position = 0; position < order.size(); ++position)
    if (position % spec.count == spec.index - 1)
      slice.push_back({order[position]});
  std::sort(slice.begin(), slice.end(),
            [](const ShardJob &a, const ShardJob &b) { return a.job < b.job; });
  return slice;
}

bool writeShard(const ShardSpec &spec, const std::vector<CompileJob> &allJobs,
                const std::vector<ShardJob> &slice, const std::vector<ExtractedUnit> &units,
                const std::string &fingerprint, bool relativePaths, std::string &error) {
  std::string out(kShardMagic, sizeof kShardMagic);
  putVarint(out, kShardVersion);
  putString(out, checkerIdentity());
  putString(out, fingerprint);
  putVarint(out, spec.index);
  putVarint(out, spec.count);
  putVarint(out, allJobs.size());
  putString(out, databaseDigest(allJobs, relativePaths));
  putVarint(out, relativePaths ? 1 : 0);
  putVarint(out, units.size());
  std::string facts;
  for (std::size_t i = 0; i < units.size(); ++i) {
    putVarint(out, slice[i].job);
    putString(out, analysis::recordedPath(allJobs[slice[i].job].file, relativePaths));
    putVarint(out, units[i].outcome.parsed ? 1 : 0);
    putVarint(out, units[i].outcome.errors.size());
    for (const std::string &e : units[i].outcome.errors)
      putString(out, e);
    putOutline(out, analysis::UnitOutline::of(units[i].unit));
    facts.clear();
    facts::encodeUnit(units[i].unit, facts);
    putString(out, facts);
    if (units[i].unit.skipped) {
      const CompileJob &job = allJobs[slice[i].job];
      putString(out, relativePaths ? relocatable(job.directory) : job.directory);
      putVarint(out, job.argv.size());
      for (const std::string &arg : job.argv)
        putString(out, relativePaths ? relocatable(arg) : arg);
    }
  }
  out += fileDigest(out);

  if (std::error_code ec = llvm::sys::fs::create_directories(spec.directory)) {
    error = spec.directory + ": " + ec.message();
    return false;
  }
  llvm::SmallString<256> final(spec.directory);
  llvm::sys::path::append(final, shardName(spec));
  return writeOwnFileAtomically(std::string(final), out, error);
}

std::vector<std::string> shardFilesIn(const std::string &path) {
  std::vector<std::string> files;
  if (!llvm::sys::fs::is_directory(path)) {
    files.push_back(path);
    return files;
  }
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(kShardExtension))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

bool runLink(const std::vector<std::string> &paths, const EngineOptions &options, RunResult &result,
             std::string &error) {
  PhaseTimer readTimer(options.stats, "read shards");
  std::vector<Shard> shards;
  for (const std::string &path : paths) {
    std::vector<std::string> files = shardFilesIn(path);
    if (files.empty()) {
      error = path + ": no shard files (*" + kShardExtension + ") in this directory";
      return false;
    }
    for (const std::string &file : files) {
      Shard shard;
      if (!readShard(file, shard, error))
        return false;
      shards.push_back(std::move(shard));
    }
  }
  if (shards.empty()) {
    error = "no shard directories given";
    return false;
  }
  // The slices must be the N slices of one database (or, linking several, of each database), cut
  // by one checker with one configuration.
  struct Database {
    const Shard *first = nullptr;
    std::vector<const Shard *> byIndex;
    std::vector<ShardUnit *> units;
  };
  std::map<std::string, Database> databases;
  const Shard &first = shards.front();
  for (Shard &shard : shards) {
    if (shard.identity != checkerIdentity()) {
      error = shard.path + ": written by another afunix-check build (" + shard.identity +
              "); run the shards and the link with one build";
      return false;
    }
    if (shard.relativePaths != first.relativePaths) {
      error = shard.path + (shard.relativePaths ? " names files relative to its working directory, "
                                                : " names files by absolute paths, ") +
              first.path + " does not: extract every shard with or every shard without --relative-paths";
      return false;
    }
    Database &database = databases[shard.database];
    if (!database.first && databases.size() > 1 && !options.linkSeveralDatabases) {
      error = shard.path + ": cut from another database than " + first.path +
              " (give --several-databases to link the shards of several databases as one program)";
      return false;
    }
    if (!database.first) {
      database.first = &shard;
      database.byIndex.assign(shard.count + 1, nullptr);
    }
    if (shard.count != database.first->count || shard.total != database.first->total) {
      error = shard.path + ": cut from another database or into another number of slices than " +
              database.first->path;
      return false;
    }
    if (shard.fingerprint != database.first->fingerprint) {
      error = shard.path + ": extracted with other project options than " + database.first->path;
      return false;
    }
    if (const Shard *other = database.byIndex[shard.index]) {
      // The same facts twice (two Bazel targets compile one file alike): one program holds them once.
      if (options.linkSeveralDatabases && other->checksum == shard.checksum)
        continue;
      error = shard.path + ": slice " + std::to_string(shard.index) + " of " +
              std::to_string(shard.count) + " given twice (also " + other->path + ")";
      return false;
    }
    database.byIndex[shard.index] = &shard;
    for (ShardUnit &unit : shard.units) {
      unit.shard = &shard;
      database.units.push_back(&unit);
    }
  }
  std::vector<Database *> ordered;
  for (auto &[digest, database] : databases) {
    std::string missing;
    for (std::uint64_t k = 1; k <= database.first->count; ++k)
      if (!database.byIndex[k])
        missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    if (!missing.empty()) {
      error = "slice" + std::string(missing.find(',') == std::string::npos ? " " : "s ") + missing +
              " of " + std::to_string(database.first->count) + " missing" +
              (databases.size() > 1 ? " (of the database of " + database.first->path + ")" : "") +
              ": link every shard of the run";
      return false;
    }
    // The units in database order, as one run has them.
    std::sort(database.units.begin(), database.units.end(),
              [](const ShardUnit *a, const ShardUnit *b) { return a->job < b->job; });
    for (std::size_t i = 0; i < database.units.size(); ++i)
      if (database.units[i]->job != i) {
        error = "the shards do not hold every file of their database exactly once";
        return false;
      }
    if (database.units.size() != database.first->total) {
      error = "the shards do not hold every file of their database exactly once";
      return false;
    }
    ordered.push_back(&database);
  }
  // Several databases: in the order of their first file (then their digest), whatever order the
  // shards were given in.
  auto firstFile = [](const Database *d) {
    std::string least;
    for (const ShardUnit *unit : d->units)
      if (least.empty() || unit->mainFile < least)
        least = unit->mainFile;
    return least;
  };
  std::stable_sort(ordered.begin(), ordered.end(), [&](const Database *a, const Database *b) {
    return firstFile(a) < firstFile(b);
  });
  std::vector<ShardUnit *> units;
  for (const Database *database : ordered)
    units.insert(units.end(), database->units.begin(), database->units.end());
  std::vector<ExtractedUnit> extracted(units.size());
  std::vector<std::string> mainFiles;
  bool anySkipped = false;
  for (std::size_t i = 0; i < units.size(); ++i) {
    extracted[i].outcome = std::move(units[i]->outcome);
    mainFiles.push_back(units[i]->mainFile);
    anySkipped |= units[i]->outline.skipped;
  }
  // Each unit is decoded when the link merges it, so the decoded units never take memory all at
  // once (docs/guide-ci.md, "The link at 100,000 files"), unless something reads them before the
  // link: the prefilter's rounds (skipped files to parse) or the stored facts file.
  bool decodeAll = anySkipped || !options.storeFacts.empty();
  if (decodeAll)
    for (std::size_t i = 0; i < units.size(); ++i) {
      llvm::Expected<facts::Unit> decoded = decodeShardUnit(*units[i]);
      if (!decoded) {
        error = llvm::toString(decoded.takeError());
        return false;
      }
      extracted[i].unit = std::move(*decoded);
    }
  readTimer.stop();
  if (options.stats)
    options.stats->stored += units.size();

  // The facts say how they name files; the configuration here is read the same way.
  EngineOptions linkOptions = options;
  linkOptions.relativePaths = first.relativePaths;
  UnitConfigs configs;
  configs.reserve(mainFiles.size());
  bool anyRule = false;
  std::size_t next = 0;
  for (const Database *database : ordered) {
    UnitConfigs own;
    own.reserve(database->units.size());
    for (std::size_t i = 0; i < database->units.size(); ++i, ++next) {
      own.push_back(unitConfig(linkOptions, mainFiles[next]));
      anyRule |= !own.back()->rules.empty();
    }
    if (std::string here = extractionFingerprintOf(own); here != database->first->fingerprint) {
      error = "the shards were extracted with other project options (" +
              database->first->fingerprint + ") than the configuration here gives (" + here + ")";
      return false;
    }
    for (auto &config : own)
      configs.push_back(std::move(config));
  }
  // Files a slice skipped knowing only its own facts: parsed here when the whole program's facts
  // make them matter (docs/prefilter.md), round by round as one run would.
  LinkInputs inputs;
  std::unique_ptr<analysis::Program> prelinked;
  if (!decodeAll && anyRule) {
    inputs = gatherLinkInputs(mainFiles, extractionFingerprintOf(configs), linkOptions);
    std::vector<const facts::Unit *> others = linkedUnits({}, inputs); // stored, then services
    std::vector<analysis::UnitOutline> outlines;
    outlines.reserve(units.size() + others.size());
    for (const ShardUnit *unit : units)
      outlines.push_back(unit->outline);
    for (const facts::Unit *unit : others)
      outlines.push_back(analysis::UnitOutline::of(*unit));
    PhaseTimer linkTimer(options.stats, "link");
    llvm::Expected<std::unique_ptr<analysis::Program>> program = analysis::Program::link(
        outlines,
        [&](std::size_t i, facts::Unit &scratch) -> llvm::Expected<analysis::Program::LoadedUnit> {
          if (i >= units.size())
            return analysis::Program::LoadedUnit{others[i - units.size()], nullptr};
          llvm::Expected<facts::Unit> decoded = decodeShardUnit(*units[i]);
          if (!decoded)
            return decoded.takeError();
          scratch = std::move(*decoded);
          return analysis::Program::LoadedUnit{&scratch, &scratch};
        });
    if (!program) {
      error = llvm::toString(program.takeError());
      return false;
    }
    prelinked = std::move(*program);
  } else if (anySkipped && anyRule) {
    inputs = gatherLinkInputs(mainFiles, extractionFingerprintOf(configs), linkOptions);
    std::vector<CompileJob> jobs(units.size());
    std::vector<const analysis::ProjectOptions *> project;
    // Relative facts name files from the working directory here.
    auto here = [&](const std::string &path) {
      llvm::SmallString<256> absolute(path);
      llvm::sys::fs::make_absolute(analysis::workingDirectory(), absolute);
      llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
      return std::string(absolute);
    };
    for (std::size_t i = 0; i < units.size(); ++i) {
      jobs[i].file = here(mainFiles[i]);
      jobs[i].target = extracted[i].unit.target;
      if (extracted[i].unit.skipped) { // (units[i]->unit was moved into extracted[i])
        jobs[i].directory = units[i]->directory;
        jobs[i].argv = units[i]->argv;
      }
      project.push_back(&configs[i]->project);
    }
    ExtractionSettings settings;
    settings.jobs = options.jobs;
    settings.stats = options.stats;
    PrefilterSettings filter;
    filter.link = [&](const std::vector<ExtractedUnit> &all) {
      return analysis::Program::link(linkedUnits(all, inputs));
    };
    filter.program = &prelinked;
    PhaseTimer timer(options.stats, "extract skipped files that matter");
    completeRelevantUnits(jobs, project, settings, filter, extracted);
    // A unit parsed here names its main file as the shard's units do.
    for (std::size_t i = 0; i < extracted.size(); ++i)
      if (!extracted[i].unit.skipped)
        extracted[i].outcome.file = mainFiles[i];
  }
  result = judgeUnits(extracted, mainFiles, configs, anyRule, linkOptions, {}, std::nullopt,
                      prelinked ? &inputs : nullptr, std::move(prelinked));
  result.relativePaths = first.relativePaths;
  if (options.disableFree)
    new std::vector<Shard>(std::move(shards)); // see EngineOptions::disableFree
  return true;
}

} // namespace afunix::check
