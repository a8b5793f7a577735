// The whole-program run: parse each compile job once and extract its socket facts (in parallel,
// one clang instance per worker), link every unit's facts into one program, evaluate the rules
// over it, and turn the reports into Findings. Findings and notes may point into any file of the
// program. NOLINT is read from the source here, as clang-tidy reads it.
#include "WholeProgram.h"

#include "Engine.h"
#include "Extraction.h"
#include "FactsCache.h"
#include "ShardFiles.h"
#include "Nolint.h"
#include "Prefilter.h"
#include "SourceCache.h"

#include "AfunixChecks.h"
#include "Extract.h"
#include "FactsBinary.h"
#include "Program.h"
#include "ProjectOptions.h"
#include "ServiceFiles.h"
#include "StoredFacts.h"

#include "afunix/RuleCatalog.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace afunix::check {

namespace {

namespace facts = ::afunix::facts;
namespace analysis = ::afunix::analysis;

// The configured severity of the rule, else the catalog's for this variant.
std::string severityOf(const EngineOptions &options, const analysis::Report &report) {
  if (auto it = options.severity.find(report.rule); it != options.severity.end())
    return it->second;
  if (const auto *entry = afunix::catalog::findRule(report.rule))
    return afunix::catalog::severityOf(*entry, afunix::catalog::findVariant(*entry, report.variant));
  return "warning";
}

} // namespace

namespace {

// The spans clang would underline: the fact's expression on its line.
std::vector<SourceSpan> spanOf(const std::string &file, unsigned line, unsigned column,
                               unsigned length) {
  if (length == 0)
    return {};
  return {{{file, line, column}, {file, line, column + length}}};
}

} // namespace

std::shared_ptr<const UnitConfig> unitConfig(const EngineOptions &options, const std::string &file) {
  UnitSettings settings = options.settingsFor ? options.settingsFor(file)
                                              : UnitSettings{options.checks, options.checkOptions};
  // Everything the config is made of, as a key (NUL never occurs in a glob or an option).
  std::string key = std::string(options.relativePaths ? "relative" : "absolute") + '\0' + settings.checks;
  for (const auto &[name, value] : settings.checkOptions)
    key += '\0' + name + '\0' + value;
  // Weak: a configuration lives as long as a run holds it.
  static std::mutex memoMutex;
  static std::map<std::string, std::weak_ptr<const UnitConfig>> memo;
  std::lock_guard<std::mutex> lock(memoMutex);
  if (auto it = memo.find(key); it != memo.end())
    if (auto shared = it->second.lock())
      return shared;
  auto made = std::make_shared<UnitConfig>();
  UnitConfig &config = *made;
  config.project = analysis::ProjectOptions::parse(
      [&](llvm::StringRef name) -> std::optional<std::string> {
        auto it = settings.checkOptions.find(name.str());
        return it == settings.checkOptions.end() ? std::nullopt : std::optional(it->second);
      },
      [&](const std::string &error) {
        llvm::errs() << "afunix-check: warning: " << file << ": " << error << "\n";
      });
  config.project.relativePaths = options.relativePaths;
  config.rules = enabledChecks(settings.checks);
  config.evaluation = settings.checks + "|" + (config.project.pedantic ? "pedantic" : "") + "|";
  if (config.project.targetKernel)
    config.evaluation += std::to_string(config.project.targetKernel->major) + "." +
                         std::to_string(config.project.targetKernel->minor) + "." +
                         std::to_string(config.project.targetKernel->patch);
  memo[key] = made;
  return made;
}

std::string extractionFingerprintOf(const UnitConfigs &configs) {
  // One fingerprint when every unit is read with the same options.
  std::string fingerprint;
  const UnitConfig *last = nullptr;
  for (const auto &config : configs) {
    if (config.get() == last)
      continue;
    std::string f = config->project.extractionFingerprint();
    fingerprint = !last ? f : fingerprint == f ? fingerprint : std::string("(per-directory options)");
    last = config.get();
  }
  return fingerprint;
}

RunResult runWholeProgram(const std::vector<CompileJob> &allJobs, const EngineOptions &options) {
  // A shard extracts its slice of the database (ShardFiles.h says which).
  std::vector<ShardJob> shardJobs;
  std::vector<CompileJob> sliced;
  if (options.shard.count) {
    shardJobs = sliceOf(allJobs, options.shard);
    for (const ShardJob &job : shardJobs)
      sliced.push_back(allJobs[job.job]);
  }
  const std::vector<CompileJob> &jobs = options.shard.count ? sliced : allJobs;
  UnitConfigs configs;
  configs.reserve(jobs.size());
  bool anyRule = false;
  for (const CompileJob &job : jobs) {
    configs.push_back(unitConfig(options, job.file));
    anyRule |= !configs.back()->rules.empty();
  }

  // Extract, in parallel (Extraction.h); the result does not depend on the number of workers.
  PhaseTimer extractTimer(options.stats, "extract");
  std::unique_ptr<FactsCache> cache;
  if (!options.cacheDir.empty() && anyRule) {
    std::string error;
    cache = FactsCache::open(options.cacheDir, error);
    if (!cache)
      llvm::errs() << "afunix-check: warning: " << error << "; every file is parsed\n";
  }
  std::vector<const analysis::ProjectOptions *> project;
  for (const auto &config : configs)
    project.push_back(&config->project);
  ExtractionSettings settings;
  settings.extract = anyRule;
  settings.fullParse = options.fullParse;
  settings.jobs = options.jobs;
  settings.cache = cache.get();
  settings.progress = options.progress;
  settings.stats = options.stats;
  // A partial run: which jobs are checked (their parses' inputs say what they include).
  std::vector<bool> checked;
  if (!options.checkedFiles.empty() && !options.shard.count) {
    std::set<std::string> named(options.checkedFiles.begin(), options.checkedFiles.end());
    for (const CompileJob &job : jobs)
      checked.push_back(named.count(job.file) > 0);
    settings.wantInputs = checked;
  }
  PrefilterSettings filter;
  filter.enabled = options.prefilter && !options.fullParse;
  filter.always = checked; // what a checked file includes decides the run's scope
  std::vector<std::string> mainFiles;
  for (const CompileJob &job : jobs)
    mainFiles.push_back(job.file);
  // What the link adds to the units, gathered first: each prefilter round links the program as
  // it will be judged, and the last round's link is the run's.
  std::optional<LinkInputs> inputs;
  std::unique_ptr<analysis::Program> prelinked;
  if (filter.enabled && anyRule && !options.shard.count) {
    inputs = gatherLinkInputs(mainFiles, extractionFingerprintOf(configs), options);
    filter.link = [&](const std::vector<ExtractedUnit> &units) {
      return analysis::Program::link(linkedUnits(units, *inputs));
    };
    if (cache)
      filter.linkInputsDigest = linkInputsDigest(*inputs);
    filter.program = &prelinked;
  }
  std::vector<ExtractedUnit> extracted;
  UnitConfigs everyConfig; // a slice: the options of the whole database
  if (options.shard.count && filter.enabled && anyRule) {
    // A slice reads the text of the whole database but parses only its own files, from its own
    // facts; the link parses what other slices' facts make matter (completeRelevantUnits).
    everyConfig.reserve(allJobs.size());
    for (const CompileJob &job : allJobs)
      everyConfig.push_back(unitConfig(options, job.file));
    std::vector<const analysis::ProjectOptions *> everyProject;
    for (const auto &config : everyConfig)
      everyProject.push_back(&config->project);
    filter.parseable.assign(allJobs.size(), false);
    for (const ShardJob &job : shardJobs)
      filter.parseable[job.job] = true;
    std::vector<ExtractedUnit> all = extractRelevantUnits(allJobs, everyProject, settings, filter);
    for (const ShardJob &job : shardJobs)
      extracted.push_back(std::move(all[job.job]));
  } else {
    extracted = extractRelevantUnits(jobs, project, settings, filter);
  }
  // What each file is built into comes from its command, not its source: never cached with it.
  for (std::size_t i = 0; i < extracted.size(); ++i)
    extracted[i].unit.target = jobs[i].target;
  if (cache) {
    cache->finish();
    if (options.stats) {
      options.stats->cacheRejected += cache->damagedPacks();
      options.stats->inputsByStamp += cache->inputsByStamp();
      options.stats->inputsRead += cache->inputsRead();
    }
  }
  extractTimer.stop();

  if (options.shard.count) {
    // One slice of a sharded run: its facts go to the shard directory; the link judges them.
    RunResult run;
    std::string error;
    // The options of the whole database, as the link computes them: a slice's own files may all
    // sit under one directory's configuration while another slice's do not.
    if (everyConfig.empty()) {
      everyConfig.reserve(allJobs.size());
      for (const CompileJob &job : allJobs)
        everyConfig.push_back(unitConfig(options, job.file));
    }
    if (!writeShard(options.shard, allJobs, shardJobs, extracted, extractionFingerprintOf(everyConfig),
                    options.relativePaths, error) &&
        options.shard.error)
      *options.shard.error = error;
    for (ExtractedUnit &unit : extracted)
      run.files.push_back(std::move(unit.outcome));
    return run;
  }
  std::optional<std::set<std::string>> scope;
  if (!checked.empty()) {
    // What a partial run reports on: the checked files and every file their parses read (the
    // project headers they include; system headers never hold a finding). Paths as the facts
    // name them (absolute, without . and ..).
    scope.emplace();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (!checked[i])
        continue;
      scope->insert(jobs[i].file);
      for (const std::string &input : extracted[i].inputs) {
        llvm::SmallString<256> path(input);
        llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
        scope->insert(input);
        scope->insert(std::string(path));
      }
    }
  }
  return judgeUnits(extracted, mainFiles, configs, anyRule, options, checked, std::move(scope),
                    inputs ? &*inputs : nullptr, std::move(prelinked));
}

LinkInputs gatherLinkInputs(const std::vector<std::string> &mainFiles, const std::string &fingerprint,
                            const EngineOptions &options) {
  LinkInputs in;
  // Service files (ServiceFiles.h): read fresh each run, they are few and small; stored with the
  // units for the editor.
  std::vector<std::string> servicePaths;
  if (options.serviceFiles)
    servicePaths = options.serviceFiles(mainFiles);
  // Named as the units name their files (a relative path reads from the working directory).
  for (std::string &path : servicePaths)
    path = analysis::recordedPath(path, options.relativePaths);
  in.services.reserve(servicePaths.size());
  for (const std::string &path : servicePaths) {
    facts::Unit unit;
    std::string error;
    if (!analysis::readServiceFile(path, unit, error)) {
      llvm::errs() << "afunix-check: warning: " << error << "\n";
      continue;
    }
    in.services.push_back(std::move(unit));
  }
  std::set<std::string> serviceFiles(servicePaths.begin(), servicePaths.end());
  std::set<std::string> own(mainFiles.begin(), mainFiles.end());
  // The units not checked now, from an earlier run over the whole database.
  if (!options.readFacts.empty()) {
    PhaseTimer timer(options.stats, "read stored facts");
    std::string error;
    in.stored = analysis::StoredFacts::read(options.readFacts, error);
    if (!in.stored)
      llvm::errs() << "afunix-check: warning: " << error << "; the files not checked now are unknown\n";
    else if (in.stored->fingerprint() != fingerprint)
      llvm::errs() << "afunix-check: warning: " << options.readFacts
                   << " was written with other project options; not used\n";
    else {
      for (const facts::Unit *unit : in.stored->unitsExcept(""))
        if (!own.count(unit->mainFile) && !serviceFiles.count(unit->mainFile))
          in.storedUnits.push_back(unit);
      // A stored unit whose files changed since is not used: said by name, never silently.
      for (const std::string &file : in.stored->staleFiles())
        if (!own.count(file) && !serviceFiles.count(file))
          in.staleFacts.push_back(file);
    }
  }
  return in;
}

std::string linkInputsDigest(const LinkInputs &inputs) {
  std::string all;
  auto add = [&](const facts::Unit &unit) {
    all += factsDigest(facts::encodeUnit(unit)); // the whole unit, its target included
    all.push_back('\0');
  };
  for (const facts::Unit *unit : inputs.storedUnits)
    add(*unit);
  all.push_back('\1');
  for (const facts::Unit &unit : inputs.services)
    add(unit);
  return fileDigest(all);
}

std::vector<const facts::Unit *> linkedUnits(const std::vector<ExtractedUnit> &extracted,
                                             const LinkInputs &inputs) {
  std::vector<const facts::Unit *> units;
  for (const ExtractedUnit &unit : extracted)
    units.push_back(&unit.unit);
  units.insert(units.end(), inputs.storedUnits.begin(), inputs.storedUnits.end());
  for (const facts::Unit &unit : inputs.services)
    units.push_back(&unit);
  return units;
}

RunResult judgeUnits(std::vector<ExtractedUnit> &extracted, const std::vector<std::string> &mainFiles,
                     const UnitConfigs &configs, bool anyRule,
                     const EngineOptions &options, const std::vector<bool> &checked,
                     std::optional<std::set<std::string>> scope, const LinkInputs *inputs,
                     std::unique_ptr<analysis::Program> prelinked) {
  RunResult run;
  run.scope = std::move(scope);
  std::vector<const facts::Unit *> units;
  std::map<std::string, std::size_t> unitOfFile; // main file -> job index
  std::vector<std::string> unparsed;
  for (std::size_t i = 0; i < extracted.size(); ++i) {
    units.push_back(&extracted[i].unit);
    unitOfFile[mainFiles[i]] = i;
    if (!extracted[i].outcome.parsed)
      unparsed.push_back(mainFiles[i]);
    bool isChecked = checked.empty() || checked[i];
    (isChecked ? run.files : run.context).push_back(std::move(extracted[i].outcome));
  }
  LinkInputs gathered;
  if (!inputs) {
    gathered = gatherLinkInputs(mainFiles, extractionFingerprintOf(configs), options);
    inputs = &gathered;
  }
  const std::vector<facts::Unit> &services = inputs->services;
  std::string fingerprint = extractionFingerprintOf(configs);
  run.staleFacts = inputs->staleFacts;
  units.insert(units.end(), inputs->storedUnits.begin(), inputs->storedUnits.end());
  if (options.stats)
    options.stats->stored += units.size() - extracted.size();
  if (!options.storeFacts.empty() && anyRule) {
    PhaseTimer timer(options.stats, "store facts");
    std::string error;
    std::vector<const facts::Unit *> own(units.begin(), units.begin() + extracted.size());
    // What would be written, as one digest, when the facts cache knows every unit's facts: a
    // warm run that changed nothing leaves the file as it is.
    std::string content = "afunix-facts\n" + fingerprint;
    bool known = true;
    for (std::size_t i = 0; i < extracted.size() && known; ++i) {
      known = !extracted[i].digest.empty();
      content += '\0' + mainFiles[i] + '\0' + extracted[i].digest + '\0' + extracted[i].unit.target;
    }
    for (const facts::Unit &unit : services) {
      own.push_back(&unit);
      for (std::size_t f = 0; f < unit.files.size(); ++f)
        content += '\0' + unit.files[f] + '\0' + unit.digests[f];
    }
    content = known ? fileDigest(content) : std::string();
    // What decides each unit's line: the checker that writes it, its facts, its target. A line
    // the file holds under the same key is copied, not written again.
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < extracted.size(); ++i)
      keys.push_back(extracted[i].digest.empty()
                         ? std::string()
                         : fileDigest(checkerIdentity() + '\0' + extracted[i].digest + '\0' +
                                      extracted[i].unit.target));
    keys.resize(own.size()); // service files: written each time (few and small)
    if (analysis::StoredFacts::upToDate(options.storeFacts, content))
      ; // nothing to write
    else if (!analysis::StoredFacts::write(options.storeFacts, own, fingerprint, error, content,
                                           keys))
      llvm::errs() << "afunix-check: warning: " << error << "\n";
    else if (options.stats)
      if (uint64_t size; !llvm::sys::fs::file_size(options.storeFacts, size))
        options.stats->factsBytes = size;
  }
  if (!anyRule) {
    sortFindings(run.findings, unparsed);
    return run;
  }

  // A program linked before (the prefilter's last round, a link of shards) was timed there.
  PhaseTimer linkTimer(prelinked ? nullptr : options.stats, "link");
  for (const facts::Unit &unit : services)
    units.push_back(&unit);
  // Nothing reads the extracted units' facts after the link (their outcomes were taken above).
  std::vector<facts::Unit *> movable;
  for (ExtractedUnit &unit : extracted)
    movable.push_back(&unit.unit);
  // The prefilter's last round linked these very units (linkedUnits()).
  std::unique_ptr<analysis::Program> program =
      prelinked ? std::move(prelinked) : analysis::Program::link(units, movable);
  linkTimer.stop();
  if (options.stats) {
    options.stats->places = program->places.size();
    options.stats->objects = program->objectCount();
    options.stats->widenedPointerSets = program->widenedPointerSets;
    options.stats->programs = program->programCount();
    options.stats->acceptsSplitByProgram = program->acceptsSplitByProgram();
  }
  if (options.dumpFacts)
    *options.dumpFacts = program->dump();

  // Evaluate once per distinct configuration; a finding counts under its own file's.
  std::map<std::string, std::size_t> groups; // evaluation key -> a config with it
  for (std::size_t i = 0; i < configs.size(); ++i)
    groups.try_emplace(configs[i]->evaluation, i);
  std::map<std::string, std::string> evaluationOfFile;
  auto evaluationOf = [&](const std::string &file) -> const std::string & {
    auto it = evaluationOfFile.find(file);
    if (it == evaluationOfFile.end()) {
      auto unit = unitOfFile.find(file);
      it = evaluationOfFile
               .emplace(file, unit != unitOfFile.end() ? configs[unit->second]->evaluation
                                                       : unitConfig(options, file)->evaluation)
               .first;
    }
    return it->second;
  };

  PhaseTimer rulesTimer(options.stats, "rules");
  SourceCache sources;
  for (const auto &[evaluation, index] : groups) {
    const UnitConfig &config = *configs[index];
    std::vector<std::string> stopped;
    std::vector<analysis::Report> reports =
        ::afunix::rules::evaluate(*program, config.project, config.rules, &stopped);
    for (std::string &rule : stopped)
      if (!llvm::is_contained(run.stoppedAtBound, rule))
        run.stoppedAtBound.push_back(std::move(rule));
    for (const analysis::Report &report : reports) {
      const facts::Site &site = program->sites[report.site];
      if (site.file == analysis::kNone)
        continue;
      const std::string &file = program->files[site.file];
      if (!inScope(run, file))
        continue; // a partial run reports on its files only (and counts nothing elsewhere)
      if (groups.size() > 1 && evaluationOf(file) != evaluation)
        continue; // judged under its own file's configuration
      if (suppressedByNolint(sources, file, site.line, report.rule)) {
        ++run.dropped.nolint;
        continue;
      }
      Finding finding;
      finding.rule = report.rule;
      finding.severity = severityOf(options, report);
      SourceCache::Position pos = sources.locate(file, site.offset);
      finding.where = {file, pos.line ? pos.line : site.line, pos.column ? pos.column : site.column};
      finding.spans = spanOf(file, finding.where.line, finding.where.column, site.length);
      finding.message = report.message;
      finding.lineText = pos.lineText;
      // The unit the finding came from: its own file when that is a unit, else (a header) the
      // first unit that included it.
      finding.unit = unitOfFile.count(file) ? file : program->unitOf[site.file];
      for (const analysis::ReportNote &note : report.notes) {
        const facts::Site &at = program->sites[note.site];
        if (at.file == analysis::kNone)
          continue;
        const std::string &noteFile = program->files[at.file];
        SourceCache::Position p = sources.locate(noteFile, at.offset);
        finding.notes.push_back({{noteFile, p.line, p.column}, note.text,
                                 spanOf(noteFile, p.line, p.column, at.length)});
      }
      for (const analysis::ReportEdit &edit : report.fixes)
        if (edit.file != analysis::kNone)
          finding.fixes.push_back({program->files[edit.file], edit.offset, edit.length, edit.text,
                                   program->digests[edit.file]});
      if (!report.fixes.empty())
        finding.fixTitle = report.fixes.front().title;
      run.findings.push_back(std::move(finding));
    }
  }
  sortFindings(run.findings, unparsed);
  if (options.disableFree) {
    // As clang's -disable-free: the process ends right after the run, and freeing the linked
    // program's and the units' millions of small objects one by one would cost a fifth of a
    // large link.
    (void)program.release();
    new std::vector<ExtractedUnit>(std::move(extracted));
  }
  return run;
}

} // namespace afunix::check
