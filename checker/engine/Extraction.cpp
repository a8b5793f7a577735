#include "Extraction.h"

#include "FactsCache.h"
#include "Isolation.h"

#include "Extract.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/Utils.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <atomic>
#include <map>
#include <mutex>

namespace afunix::check {

namespace {

namespace facts = ::afunix::facts;
namespace analysis = ::afunix::analysis;
namespace vfs = llvm::vfs;

// Compiler errors as "file:line:col: error: message": the file was not parsed as written.
class ErrorCollector : public clang::DiagnosticConsumer {
public:
  explicit ErrorCollector(std::vector<std::string> &errors) : Errors(errors) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error)
      return;
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    std::string where;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager &sm = info.getSourceManager();
      clang::PresumedLoc loc = sm.getPresumedLoc(sm.getExpansionLoc(info.getLocation()));
      if (loc.isValid())
        where = std::string(loc.getFilename()) + ":" + std::to_string(loc.getLine()) + ":" +
                std::to_string(loc.getColumn()) + ": ";
    }
    Errors.push_back(where + "error: " + std::string(message));
  }

private:
  std::vector<std::string> &Errors;
};

// Hands the extractor the program's own declarations only (system headers stay reachable from
// the code that uses them), as the clang-tidy path's UserCodeScope does.
class ExtractConsumer : public clang::ASTConsumer {
public:
  ExtractConsumer(clang::SourceManager &sources, const analysis::ProjectOptions &options,
                  facts::Unit &out, bool extract, bool fullParse)
      : Sources(sources), Options(options), Out(out), Extract(extract), FullParse(fullParse) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl *decl : group)
      if (!Sources.isInSystemHeader(decl->getLocation()))
        UserDecls.push_back(decl);
    return true;
  }
  void HandleTranslationUnit(clang::ASTContext &context) override {
    // A file with errors still has an AST (clang recovers): its facts count, and the file is
    // reported as not parsed.
    if (!Extract)
      return;
    context.setTraversalScope(UserDecls);
    Out = analysis::extractFacts(context, Options);
  }
  // Skip 1: the bodies of functions declared in system headers. The extractor never walks a
  // declaration from a system header (Extract.cpp, TraverseDecl) and reads nothing out of a
  // callee's body, only its declaration (parameters, return type, record fields and methods), so
  // no fact can come from such a body. clang still parses every body it must to type the rest:
  // Sema::canSkipFunctionBody refuses constexpr functions and those with a deduced return type
  // before asking here; an instantiation of a skipped template body is empty, which no fact
  // reads either. What is lost: errors inside those bodies (glibc's and libstdc++'s inline
  // functions), which are not the program's.
  bool shouldSkipFunctionBody(clang::Decl *decl) override {
    return !FullParse && Sources.isInSystemHeader(Sources.getExpansionLoc(decl->getLocation()));
  }

private:
  clang::SourceManager &Sources;
  const analysis::ProjectOptions &Options;
  facts::Unit &Out;
  bool Extract, FullParse;
  std::vector<clang::Decl *> UserDecls;
};

class ExtractAction : public clang::ASTFrontendAction {
public:
  ExtractAction(const analysis::ProjectOptions &options, facts::Unit &out, bool extract,
                bool fullParse, CacheInputs *inputs)
      : Options(options), Out(out), Extract(extract), FullParse(fullParse), Inputs(inputs) {}
  bool BeginInvocation(clang::CompilerInstance &compiler) override {
    // The parser asks the consumer about each body (shouldSkipFunctionBody) only when skipping
    // is on at all.
    compiler.getFrontendOpts().SkipFunctionBodies = !FullParse;
    return true;
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &compiler,
                                                        llvm::StringRef) override {
    return std::make_unique<ExtractConsumer>(compiler.getSourceManager(), Options, Out, Extract,
                                             FullParse);
  }
  void EndSourceFileAction() override {
    // Every file the parse read, for the facts cache (even after errors: they are cached too).
    if (Inputs)
      *Inputs = inputsOf(getCompilerInstance().getSourceManager());
  }

private:
  const analysis::ProjectOptions &Options;
  facts::Unit &Out;
  bool Extract, FullParse;
  CacheInputs *Inputs;
};

// Skip 2: the driver once per command line. Turning a compile command into clang's internal
// (cc1) arguments runs clang's driver, which probes the system (GCC installations, the
// distribution, multilibs: ~60 system calls) and is about a tenth of a small C file's parse. The
// cc1 arguments of two jobs whose commands differ only in the input file differ only in that
// input and in -main-file-name (its base name); the driver's output for the first is reused for
// the others with those two replaced. A command whose cc1 arguments do not show the input
// exactly once goes through the driver itself.
class DriverCache {
public:
  // cc1 arguments for `job` ("-cc1", ...), or empty when the driver must run for it.
  std::vector<std::string> cc1For(const CompileJob &job, vfs::FileSystem &fs) {
    int input = inputIndex(job);
    if (input < 0)
      return {};
    std::string key = job.directory + '\0' + llvm::sys::path::extension(job.file).str();
    for (std::size_t i = 0; i < job.argv.size(); ++i)
      key += '\0' + (int(i) == input ? std::string("\1input") : job.argv[i]);
    std::shared_ptr<Shape> shape;
    {
      std::lock_guard<std::mutex> guard(Lock);
      auto &slot = Shapes[key];
      if (!slot)
        slot = std::make_shared<Shape>();
      shape = slot;
    }
    std::call_once(shape->once, [&] { shape->build(job, input, fs); });
    if (!shape->usable)
      return {};
    std::vector<std::string> args = shape->cc1;
    args[shape->input] = job.argv[input];
    if (shape->mainFileName >= 0)
      args[shape->mainFileName] = llvm::sys::path::filename(job.argv[input]).str();
    return args;
  }

private:
  struct Shape {
    std::once_flag once;
    bool usable = false;
    std::vector<std::string> cc1;
    std::size_t input = 0;
    int mainFileName = -1;

    void build(const CompileJob &job, int inputArg, vfs::FileSystem &fs) {
      std::vector<const char *> argv;
      for (const std::string &arg : job.argv)
        argv.push_back(arg.c_str());
      auto options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
      clang::IgnoringDiagConsumer ignore; // the job's own parse reports what matters
      clang::CreateInvocationOptions create;
      create.Diags = clang::CompilerInstance::createDiagnostics(options.get(), &ignore, false);
      create.VFS = &fs;
      create.CC1Args = &cc1;
      if (!clang::createInvocation(argv, create) || cc1.empty() || cc1[0] != "-cc1")
        return;
      const std::string &spelled = job.argv[inputArg];
      unsigned seen = 0;
      for (std::size_t i = 0; i < cc1.size(); ++i) {
        if (cc1[i] == spelled) {
          input = i;
          ++seen;
        }
        if (cc1[i] == "-main-file-name" && i + 1 < cc1.size())
          mainFileName = static_cast<int>(i + 1);
      }
      usable = seen == 1 && (mainFileName < 0 ||
                             cc1[mainFileName] == llvm::sys::path::filename(spelled));
    }
  };

  // The argument naming the job's file (the last one, as the driver takes it).
  static int inputIndex(const CompileJob &job) {
    int found = -1;
    for (std::size_t i = 1; i < job.argv.size(); ++i) {
      llvm::SmallString<256> path(job.argv[i]);
      if (path.empty() || path[0] == '-')
        continue;
      if (!llvm::sys::path::is_absolute(path))
        llvm::sys::fs::make_absolute(job.directory, path);
      llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
      if (path == job.file)
        found = static_cast<int>(i);
    }
    return found;
  }

  std::mutex Lock;
  std::map<std::string, std::shared_ptr<Shape>> Shapes;
};

// Skip 3: each file read once per run. Every job's parse looks its headers up along the same
// include paths and reads the same system headers: a stat per directory tried, an open, a
// readlink and a read per header, per job (a fifth of a small C file's cost is in the kernel).
// The run shares what the file system said: stat results (misses too) and file contents, by
// absolute path. Files are read once, so a file changed while the run goes on is seen by all
// jobs as it was first read (a run is one snapshot). Contents are kept up to kContentBudget
// bytes; past it files are read per job again.
class RunFiles {
public:
  static constexpr std::size_t kContentBudget = std::size_t(1) << 30;

  llvm::ErrorOr<vfs::Status> status(const std::string &absolute, vfs::FileSystem &fs) {
    {
      std::lock_guard<std::mutex> guard(Lock);
      auto it = Stats.find(absolute);
      if (it != Stats.end())
        return it->second;
    }
    llvm::ErrorOr<vfs::Status> status = fs.status(absolute);
    std::lock_guard<std::mutex> guard(Lock);
    return Stats.try_emplace(absolute, status).first->second;
  }

  struct Content {
    vfs::Status status;
    std::unique_ptr<llvm::MemoryBuffer> bytes; // null-terminated
  };
  // The file's status and bytes, or an error; null Content::bytes when over budget.
  llvm::ErrorOr<std::shared_ptr<const Content>> content(const std::string &absolute,
                                                        vfs::FileSystem &fs) {
    {
      std::lock_guard<std::mutex> guard(Lock);
      auto it = Contents.find(absolute);
      if (it != Contents.end())
        return it->second;
      if (Used >= kContentBudget)
        return std::shared_ptr<const Content>();
    }
    llvm::ErrorOr<std::shared_ptr<const Content>> result = read(absolute, fs);
    std::lock_guard<std::mutex> guard(Lock);
    if (result && *result)
      Used += (*result)->bytes->getBufferSize();
    return Contents.try_emplace(absolute, result).first->second;
  }

private:
  static llvm::ErrorOr<std::shared_ptr<const Content>> read(const std::string &absolute,
                                                            vfs::FileSystem &fs) {
    llvm::ErrorOr<std::unique_ptr<vfs::File>> file = fs.openFileForRead(absolute);
    if (!file)
      return file.getError();
    llvm::ErrorOr<vfs::Status> status = (*file)->status();
    if (!status)
      return status.getError();
    // Read, not mapped: the bytes must stay what they were for the whole run.
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
        (*file)->getBuffer(absolute, status->getSize(), /*RequiresNullTerminator=*/true,
                           /*IsVolatile=*/true);
    if (!bytes)
      return bytes.getError();
    auto content = std::make_shared<Content>();
    content->status = *status;
    content->bytes = std::move(*bytes);
    return std::shared_ptr<const Content>(std::move(content));
  }

  std::mutex Lock;
  llvm::StringMap<llvm::ErrorOr<vfs::Status>> Stats;
  llvm::StringMap<llvm::ErrorOr<std::shared_ptr<const Content>>> Contents;
  std::size_t Used = 0;
};

// A file whose bytes the run already holds.
class SharedFile : public vfs::File {
public:
  SharedFile(std::shared_ptr<const RunFiles::Content> content, std::string name)
      : Content(std::move(content)), Name(std::move(name)) {}
  llvm::ErrorOr<vfs::Status> status() override {
    return vfs::Status::copyWithNewName(Content->status, Name);
  }
  llvm::ErrorOr<std::string> getName() override { return Name; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine &name, int64_t,
                                                               bool requiresNullTerminator,
                                                               bool) override {
    return llvm::MemoryBuffer::getMemBuffer(Content->bytes->getBuffer(), name.str(),
                                            requiresNullTerminator);
  }
  std::error_code close() override { return {}; }

private:
  std::shared_ptr<const RunFiles::Content> Content;
  std::string Name;
};

// One job's view of the file system: its own working directory, the run's shared answers.
class JobFileSystem : public vfs::ProxyFileSystem {
public:
  JobFileSystem(llvm::IntrusiveRefCntPtr<vfs::FileSystem> real, RunFiles &files)
      : ProxyFileSystem(std::move(real)), Files(files) {}

  llvm::ErrorOr<vfs::Status> status(const llvm::Twine &path) override {
    std::string name = path.str();
    llvm::ErrorOr<vfs::Status> status = Files.status(absolute(name), getUnderlyingFS());
    if (!status)
      return status.getError();
    return vfs::Status::copyWithNewName(*status, name);
  }
  bool exists(const llvm::Twine &path) override { return bool(status(path)); }
  llvm::ErrorOr<std::unique_ptr<vfs::File>> openFileForRead(const llvm::Twine &path) override {
    std::string name = path.str();
    std::string full = absolute(name);
    llvm::ErrorOr<std::shared_ptr<const RunFiles::Content>> content =
        Files.content(full, getUnderlyingFS());
    if (!content)
      return content.getError();
    if (!*content) // over the budget: this job reads it itself
      return getUnderlyingFS().openFileForRead(name);
    return std::unique_ptr<vfs::File>(std::make_unique<SharedFile>(*content, full));
  }

private:
  std::string absolute(const std::string &name) {
    llvm::SmallString<256> path(name);
    getUnderlyingFS().makeAbsolute(path);
    return std::string(path);
  }
  RunFiles &Files;
};

struct Parsed {
  facts::Unit unit;
  FileOutcome outcome;
  bool completed = true; // false: clang crashed; nothing of it is kept or cached
};

Parsed parseJob(const CompileJob &job, const analysis::ProjectOptions &options,
                const ExtractionSettings &settings, RunFiles *shared, DriverCache *drivers,
                CacheInputs *inputs, Isolate isolate) {
  Parsed result;
  result.outcome.file = job.file;
  bool ran = false;
  // Isolated: a unit that crashes clang (or overflows its stack) costs that unit only.
  IsolationOutcome isolated = isolate([&] {
    ErrorCollector collector(result.outcome.errors);
    // A file system of our own: its working directory is the command's, so workers never chdir.
    llvm::IntrusiveRefCntPtr<vfs::FileSystem> fs(vfs::createPhysicalFileSystem().release());
    fs->setCurrentWorkingDirectory(job.directory);
    if (shared)
      fs = llvm::makeIntrusiveRefCnt<JobFileSystem>(fs, *shared);
    auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), fs);
    std::vector<std::string> argv;
    if (drivers) {
      argv = drivers->cc1For(job, *fs);
      if (!argv.empty())
        argv.insert(argv.begin(), job.argv[0]);
    }
    if (argv.empty())
      argv = job.argv;
    clang::tooling::ToolInvocation invocation(
        argv,
        std::make_unique<ExtractAction>(options, result.unit, settings.extract, settings.fullParse,
                                        inputs),
        files.get(), std::make_shared<clang::PCHContainerOperations>());
    invocation.setDiagnosticConsumer(&collector);
    ran = invocation.run();
  });
  if (!isolated.completed) {
    result.completed = false;
    result.outcome.parsed = false;
    result.outcome.errors.push_back(job.file + ": error: clang " + isolated.what +
                                    " while checking this file");
    result.unit = facts::Unit(); // what a crashed extraction left is not trusted
  } else if (!result.outcome.errors.empty()) {
    result.outcome.parsed = false;
  } else if (!ran) {
    result.outcome.parsed = false;
    result.outcome.errors.push_back(job.file + ": error: clang could not process this file");
  }
  return result;
}

} // namespace

std::vector<ExtractedUnit> extractUnits(const std::vector<CompileJob> &jobs,
                                        const std::vector<const analysis::ProjectOptions *> &project,
                                        const ExtractionSettings &settings) {
  std::vector<ExtractedUnit> out(jobs.size());
  std::optional<RunFiles> shared;
  std::optional<DriverCache> drivers;
  if (!settings.fullParse) {
    shared.emplace();
    drivers.emplace();
  }
  FactsCache *cache = settings.extract ? settings.cache : nullptr;
  std::atomic<std::size_t> next{0}, cached{0}, rejected{0};
  std::mutex reportLock;
  std::size_t done = 0;
  bool storeFailed = false;
  unsigned threads = std::max(1u, std::min<unsigned>(settings.jobs, jobs.size()));
  runIsolatedWorkers(threads, [&](unsigned, Isolate isolate) {
    for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      const CompileJob &job = jobs[i];
      ExtractedUnit &unit = out[i];
      std::string key;
      if (cache) {
        key = cache->keyOf(job, project[i]->extractionFingerprint());
        FactsCache::Entry entry;
        std::string why;
        FactsCache::Lookup found = cache->lookup(key, entry, why);
        if (found == FactsCache::Lookup::Hit) {
          unit.unit = std::move(entry.unit);
          unit.outcome.file = job.file;
          unit.outcome.parsed = entry.parsed;
          unit.outcome.errors = std::move(entry.errors);
          unit.fromCache = true;
          ++cached;
        } else if (found == FactsCache::Lookup::Rejected) {
          ++rejected;
          std::lock_guard<std::mutex> guard(reportLock);
          llvm::errs() << "afunix-check: warning: facts cache entry " << why
                       << "; not used, the file is parsed again\n";
        }
      }
      if (!unit.fromCache) {
        CacheInputs inputs;
        Parsed parsed = parseJob(job, *project[i], settings, shared ? &*shared : nullptr,
                                 drivers ? &*drivers : nullptr, cache ? &inputs : nullptr, isolate);
        unit.unit = std::move(parsed.unit);
        unit.outcome = std::move(parsed.outcome);
        std::string error;
        if (cache && parsed.completed && !inputs.empty() &&
            !cache->store(key, inputs, unit.unit, unit.outcome.parsed, unit.outcome.errors, error)) {
          std::lock_guard<std::mutex> guard(reportLock);
          if (!storeFailed)
            llvm::errs() << "afunix-check: warning: facts cache: " << error
                         << "; facts are not cached\n";
          storeFailed = true;
        }
      }
      if (settings.progress) {
        std::lock_guard<std::mutex> guard(reportLock);
        settings.progress(++done, jobs.size(), job.file, unit.fromCache);
      }
    }
  });
  if (settings.stats) {
    settings.stats->cached += cached;
    settings.stats->extracted += jobs.size() - cached;
    settings.stats->cacheRejected += rejected;
  }
  return out;
}

} // namespace afunix::check
