#include "Engine.h"
#include "SourceCache.h"

#include "Report.h"

#include "Isolation.h"
#include "SafeFiles.h"

#include "afunix/RuleCatalog.h"

#include "ClangTidy.h"
#include "ClangTidyCheck.h"
#include "ClangTidyDiagnosticConsumer.h"
#include "ClangTidyModuleRegistry.h"
#include "ClangTidyOptions.h"
#include "GlobList.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclGroup.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_map>

// Defined in checker/lib/AfunixTidyModule.cpp; referencing it keeps the module registration.
extern volatile int AfunixModuleAnchorSource;
[[maybe_unused]] static int AfunixModuleAnchorDestination = AfunixModuleAnchorSource;

namespace afunix::check {

using clang::tidy::ClangTidyError;

namespace {

std::string resolve(llvm::StringRef path, const std::string &buildDir) {
  if (path.empty())
    return std::string();
  return absolutePath(path.str(), buildDir);
}

// Hands the checks' consumer the whole parse, but lets the matchers walk only declarations
// outside system headers (as clangd does with the main file): no rule reports inside libc or the
// C++ library, and walking their declarations is most of the matching time on small files. A
// system declaration stays reachable from the code that uses it (the callee of a call).
class UserCodeScope : public clang::ASTConsumer {
public:
  UserCodeScope(std::unique_ptr<clang::ASTConsumer> inner, clang::SourceManager &sources)
      : inner_(std::move(inner)), sources_(sources) {}

  void Initialize(clang::ASTContext &context) override { inner_->Initialize(context); }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl *decl : group)
      if (!sources_.isInSystemHeader(decl->getLocation()))
        userDecls_.push_back(decl);
    return inner_->HandleTopLevelDecl(group);
  }
  void HandleTranslationUnit(clang::ASTContext &context) override {
    context.setTraversalScope(userDecls_);
    inner_->HandleTranslationUnit(context);
  }
  void HandleInlineFunctionDefinition(clang::FunctionDecl *d) override {
    inner_->HandleInlineFunctionDefinition(d);
  }
  void HandleInterestingDecl(clang::DeclGroupRef d) override { HandleTopLevelDecl(d); }
  void HandleTagDeclDefinition(clang::TagDecl *d) override { inner_->HandleTagDeclDefinition(d); }
  void HandleTagDeclRequiredDefinition(const clang::TagDecl *d) override {
    inner_->HandleTagDeclRequiredDefinition(d);
  }
  void HandleCXXImplicitFunctionInstantiation(clang::FunctionDecl *d) override {
    inner_->HandleCXXImplicitFunctionInstantiation(d);
  }
  void HandleTopLevelDeclInObjCContainer(clang::DeclGroupRef d) override {
    inner_->HandleTopLevelDeclInObjCContainer(d);
  }
  void HandleImplicitImportDecl(clang::ImportDecl *d) override {
    inner_->HandleImplicitImportDecl(d);
  }
  void CompleteTentativeDefinition(clang::VarDecl *d) override {
    inner_->CompleteTentativeDefinition(d);
  }
  void CompleteExternalDeclaration(clang::DeclaratorDecl *d) override {
    inner_->CompleteExternalDeclaration(d);
  }
  void AssignInheritanceModel(clang::CXXRecordDecl *d) override {
    inner_->AssignInheritanceModel(d);
  }
  void HandleCXXStaticMemberVarInstantiation(clang::VarDecl *d) override {
    inner_->HandleCXXStaticMemberVarInstantiation(d);
  }
  void HandleVTable(clang::CXXRecordDecl *d) override { inner_->HandleVTable(d); }
  clang::ASTMutationListener *GetASTMutationListener() override {
    return inner_->GetASTMutationListener();
  }
  clang::ASTDeserializationListener *GetASTDeserializationListener() override {
    return inner_->GetASTDeserializationListener();
  }
  void PrintStats() override { inner_->PrintStats(); }
  bool shouldSkipFunctionBody(clang::Decl *d) override { return inner_->shouldSkipFunctionBody(d); }

private:
  std::unique_ptr<clang::ASTConsumer> inner_;
  clang::SourceManager &sources_;
  std::vector<clang::Decl *> userDecls_;
};

class Action : public clang::ASTFrontendAction {
public:
  explicit Action(clang::tidy::ClangTidyASTConsumerFactory &factory) : factory_(factory) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &compiler,
                                                        llvm::StringRef file) override {
    return std::make_unique<UserCodeScope>(factory_.createASTConsumer(compiler, file),
                                           compiler.getSourceManager());
  }

private:
  clang::tidy::ClangTidyASTConsumerFactory &factory_;
};

// Sits in front of clang-tidy's consumer for both the compiler's and the checks' diagnostics.
// A check may report at error level (its catalog severity); clang-tidy never lets NOLINT silence
// an error and counts it as a failed compile, so check diagnostics reach clang-tidy as warnings
// (the engine applies the severity afterwards) and only compiler errors count as errors.
// It also fingerprints the bytes of every file a check's fix-it edits, as clang read them, so
// --fix can refuse a file that changed since (Edit::baseDigest).
class CheckLevelForwarder : public clang::DiagnosticConsumer {
public:
  CheckLevelForwarder(clang::tidy::ClangTidyContext &context, clang::DiagnosticConsumer &inner,
                      const std::string &directory, std::map<std::string, std::string> &digests)
      : context_(context), inner_(inner), directory_(directory), digests_(digests) {}
  void BeginSourceFile(const clang::LangOptions &lang, const clang::Preprocessor *pp) override {
    inner_.BeginSourceFile(lang, pp);
  }
  void EndSourceFile() override { inner_.EndSourceFile(); }
  void finish() override { inner_.finish(); }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &info) override {
    bool isCheck = llvm::StringRef(context_.getCheckName(info.getID())).starts_with("afunix-");
    if (level >= clang::DiagnosticsEngine::Error && isCheck)
      level = clang::DiagnosticsEngine::Warning;
    if (isCheck && info.hasSourceManager())
      for (const clang::FixItHint &hint : info.getFixItHints())
        remember(info.getSourceManager(), hint.RemoveRange.getBegin());
    clang::DiagnosticConsumer::HandleDiagnostic(level, info); // counts compiler errors only
    inner_.HandleDiagnostic(level, info);
  }

private:
  void remember(const clang::SourceManager &sources, clang::SourceLocation location) {
    if (location.isInvalid())
      return;
    clang::FileID id = sources.getFileID(sources.getFileLoc(location));
    clang::OptionalFileEntryRef entry = sources.getFileEntryRefForID(id);
    if (!entry)
      return;
    std::string path = absolutePath(entry->getName().str(), directory_);
    if (digests_.count(path))
      return;
    digests_[path] = contentDigest(sources.getBufferData(id));
  }

  clang::tidy::ClangTidyContext &context_;
  clang::DiagnosticConsumer &inner_;
  const std::string &directory_;
  std::map<std::string, std::string> &digests_;
};

// clang-tidy's options for each unit: the engine's defaults, or EngineOptions::settingsFor.
// Header filtering is not clang-tidy's job here: every non-system header finding comes out and
// the front end filters Findings (so both pipelines share one filter).
class UnitOptionsProvider : public clang::tidy::ClangTidyOptionsProvider {
public:
  explicit UnitOptionsProvider(const EngineOptions &options) : options_(options) {}
  void setDirectory(const std::string &directory) { directory_ = directory; }

  const clang::tidy::ClangTidyGlobalOptions &getGlobalOptions() override { return global_; }

  std::vector<OptionsSource> getRawOptions(llvm::StringRef file) override {
    clang::tidy::ClangTidyOptions tidy = clang::tidy::ClangTidyOptions::getDefaults();
    tidy.WarningsAsErrors = "";
    tidy.HeaderFilterRegex = ".*";
    tidy.ExcludeHeaderFilterRegex = "";
    tidy.SystemHeaders = false;
    UnitSettings settings{options_.checks, options_.checkOptions};
    if (options_.settingsFor && !file.empty())
      settings = options_.settingsFor(absolutePath(file.str(), directory_));
    tidy.Checks = settings.checks;
    for (const auto &[name, value] : settings.checkOptions)
      tidy.CheckOptions[name] = clang::tidy::ClangTidyOptions::ClangTidyValue(value);
    return {OptionsSource(std::move(tidy), "afunix-check")};
  }

private:
  const EngineOptions &options_;
  clang::tidy::ClangTidyGlobalOptions global_;
  std::string directory_;
};

struct FileResult {
  std::vector<Finding> findings;
  FileOutcome outcome;
  DroppedCounts dropped;
};

// One per thread: clang-tidy's context holds the state of the file being checked.
class Worker {
public:
  explicit Worker(const EngineOptions &options) : options_(options) { reset(); }

  FileResult check(const CompileJob &job) {
    FileResult result;
    result.outcome.file = job.file;
    std::vector<ClangTidyError> errors;
    bool ran = false;
    clang::tidy::ClangTidyDiagnosticConsumer *consumer = nullptr;
    std::map<std::string, std::string> digests;
    provider_->setDirectory(job.directory);
    clang::tidy::ClangTidyStats before = context_->getStats();
    IsolationOutcome isolated = runIsolated([&] {
      consumer = new clang::tidy::ClangTidyDiagnosticConsumer(*context_);
      CheckLevelForwarder forwarder(*context_, *consumer, job.directory, digests);
      auto diagOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
      clang::DiagnosticsEngine engine(diagnosticIds_, &*diagOptions, &forwarder,
                                      /*ShouldOwnClient=*/false);
      context_->setDiagnosticsEngine(&engine);
      // A file system of our own: its working directory is the command's, not the process's,
      // so workers never chdir under each other.
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs(
          llvm::vfs::createPhysicalFileSystem().release());
      fs->setCurrentWorkingDirectory(job.directory);
      auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), fs);
      clang::tooling::ToolInvocation invocation(job.argv, std::make_unique<Action>(*factory_),
                                                files.get(),
                                                std::make_shared<clang::PCHContainerOperations>());
      invocation.setDiagnosticConsumer(&forwarder);
      ran = invocation.run();
      errors = consumer->take();
      context_->setDiagnosticsEngine(nullptr);
      delete consumer;
      consumer = nullptr;
    });
    if (!isolated.completed) {
      // What the checks reported before the crash is still worth having, if it can be read.
      if (consumer) {
        runIsolated([&] { errors = consumer->take(); });
      }
      result.outcome.parsed = false;
      result.outcome.errors.push_back(job.file + ": error: clang " + isolated.what +
                                      " while checking this file");
      reset(); // the context may be half-way through the crashed file
    } else {
      const clang::tidy::ClangTidyStats &after = context_->getStats();
      result.dropped.nolint = after.ErrorsIgnoredNOLINT - before.ErrorsIgnoredNOLINT;
      result.dropped.systemHeaders = after.ErrorsIgnoredNonUserCode - before.ErrorsIgnoredNonUserCode;
    }
    convert(errors, job, digests, result);
    // Errors with a location first, in source order; "too many errors" and the like last.
    std::vector<std::string> located, unlocated;
    for (std::string &e : result.outcome.errors)
      (e.rfind(job.file + ": error: ", 0) == 0 ? unlocated : located).push_back(std::move(e));
    located.insert(located.end(), unlocated.begin(), unlocated.end());
    result.outcome.errors = std::move(located);
    if (!ran && result.outcome.parsed) {
      result.outcome.parsed = false;
      result.outcome.errors.push_back(job.file + ": error: clang could not process this file");
    }
    return result;
  }

private:
  void reset() {
    // Leaked on purpose after a crash: the old objects may be inconsistent.
    context_.release();
    factory_.release();
    auto provider = std::make_unique<UnitOptionsProvider>(options_);
    provider_ = provider.get();
    context_ = std::make_unique<clang::tidy::ClangTidyContext>(std::move(provider));
    factory_ = std::make_unique<clang::tidy::ClangTidyASTConsumerFactory>(*context_);
    // The context remembers which check owns each custom diagnostic id: ids must come from one
    // table for as long as the context lives, or a later file's ids map to earlier checks.
    diagnosticIds_ = llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>();
  }

  // The configured severity, else the catalog's for the variant the message was filled from
  // (clang-tidy hands over only the text).
  std::string severityOf(const std::string &rule, llvm::StringRef message) const {
    auto it = options_.severity.find(rule);
    if (it != options_.severity.end())
      return it->second;
    if (const auto *entry = afunix::catalog::findRule(rule))
      return afunix::catalog::severityOf(*entry, afunix::analysis::variantOfMessage(*entry, message));
    return "warning";
  }

  // The [begin, end) spans of clang-tidy's byte ranges.
  std::vector<SourceSpan> spansOf(const llvm::SmallVector<clang::tooling::FileByteRange, 1> &ranges,
                                  const std::string &buildDirectory) {
    std::vector<SourceSpan> spans;
    for (const clang::tooling::FileByteRange &range : ranges) {
      std::string file = resolve(range.FilePath, buildDirectory);
      if (file.empty())
        continue;
      SourceCache::Position begin = sources_.locate(file, range.FileOffset);
      SourceCache::Position end = sources_.locate(file, range.FileOffset + range.Length);
      if (!begin.line || !end.line)
        continue;
      spans.push_back({{file, begin.line, begin.column}, {file, end.line, end.column}});
    }
    return spans;
  }

  void convert(const std::vector<ClangTidyError> &errors, const CompileJob &job,
               const std::map<std::string, std::string> &digests, FileResult &result) {
    for (const ClangTidyError &error : errors) {
      const std::string &name = error.DiagnosticName;
      const auto &message = error.Message;
      std::string file = resolve(message.FilePath, error.BuildDirectory);
      SourceCache::Position pos = file.empty() ? SourceCache::Position()
                                               : sources_.locate(file, message.FileOffset);
      bool isCheck = llvm::StringRef(name).starts_with("afunix-");
      if (!isCheck) {
        // Compiler errors (and malformed NOLINTBEGIN blocks): the file was not parsed as written.
        if (error.DiagLevel != clang::tooling::Diagnostic::Error)
          continue;
        std::string text = file.empty() ? result.outcome.file + ": error: " + message.Message
                                        : file + ":" + std::to_string(pos.line) + ":" +
                                              std::to_string(pos.column) + ": error: " +
                                              message.Message;
        result.outcome.parsed = false;
        result.outcome.errors.push_back(text);
        continue;
      }
      Finding finding;
      finding.rule = name;
      finding.severity = severityOf(name, message.Message);
      finding.where = {file, pos.line, pos.column};
      finding.message = message.Message;
      finding.lineText = pos.lineText;
      finding.spans = spansOf(message.Ranges, error.BuildDirectory);
      finding.unit = job.file;
      for (const auto &note : error.Notes) {
        std::string noteFile = resolve(note.FilePath, error.BuildDirectory);
        SourceCache::Position p =
            noteFile.empty() ? SourceCache::Position() : sources_.locate(noteFile, note.FileOffset);
        finding.notes.push_back(
            {{noteFile, p.line, p.column}, note.Message, spansOf(note.Ranges, error.BuildDirectory)});
      }
      for (const auto &[fixFile, replacements] : message.Fix)
        for (const clang::tooling::Replacement &r : replacements) {
          std::string editFile = resolve(r.getFilePath(), error.BuildDirectory);
          auto digest = digests.find(editFile);
          finding.fixes.push_back({editFile, r.getOffset(), r.getLength(),
                                   r.getReplacementText().str(),
                                   digest == digests.end() ? std::string() : digest->second});
        }
      result.findings.push_back(std::move(finding));
    }
  }

  const EngineOptions &options_;
  UnitOptionsProvider *provider_ = nullptr; // owned by context_
  std::unique_ptr<clang::tidy::ClangTidyContext> context_;
  std::unique_ptr<clang::tidy::ClangTidyASTConsumerFactory> factory_;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> diagnosticIds_;
  SourceCache sources_;
};

} // namespace

void enableCrashRecovery() { llvm::CrashRecoveryContext::Enable(); }

void sortFindings(std::vector<Finding> &findings, const std::vector<std::string> &unparsedUnits) {
  auto key = [](const Finding &f) {
    return std::tie(f.where.file, f.where.line, f.where.column, f.rule, f.message);
  };
  std::set<std::string> unparsed(unparsedUnits.begin(), unparsedUnits.end());
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding &a, const Finding &b) {
    if (key(a) != key(b))
      return key(a) < key(b);
    // Among duplicates, one from a unit that parsed first: its notes and fix-its are trustworthy.
    return !unparsed.count(a.unit) && unparsed.count(b.unit);
  });
  findings.erase(std::unique(findings.begin(), findings.end(),
                             [&](const Finding &a, const Finding &b) { return key(a) == key(b); }),
                 findings.end());
}

RunResult runChecks(const std::vector<CompileJob> &jobs, const EngineOptions &options) {
  if (options.wholeProgram)
    return runWholeProgram(jobs, options);
  std::vector<FileResult> results(jobs.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    Worker worker(options);
    for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();)
      results[i] = worker.check(jobs[i]);
  };
  unsigned threads = std::max(1u, std::min<unsigned>(options.jobs, jobs.size()));
  if (threads == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(work);
    for (std::thread &t : pool)
      t.join();
  }
  RunResult run;
  std::vector<std::string> unparsed;
  for (FileResult &r : results) {
    for (Finding &f : r.findings)
      run.findings.push_back(std::move(f));
    if (!r.outcome.parsed)
      unparsed.push_back(r.outcome.file);
    run.files.push_back(std::move(r.outcome));
    run.dropped.nolint += r.dropped.nolint;
    run.dropped.systemHeaders += r.dropped.systemHeaders;
  }
  sortFindings(run.findings, unparsed);
  return run;
}

std::vector<std::string> registeredChecks() {
  clang::tidy::ClangTidyCheckFactories factories;
  for (const auto &module : clang::tidy::ClangTidyModuleRegistry::entries())
    module.instantiate()->addCheckFactories(factories);
  std::vector<std::string> names;
  for (const auto &entry : factories)
    if (llvm::StringRef(entry.getKey()).starts_with("afunix-"))
      names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> enabledChecks(const std::string &glob) {
  // Asked once per unit with one of a few globs: the regular expressions are built once each.
  static std::mutex lock;
  static std::map<std::string, std::vector<std::string>> known;
  std::lock_guard<std::mutex> guard(lock);
  auto [it, fresh] = known.try_emplace(glob);
  if (fresh) {
    clang::tidy::CachedGlobList filter(glob);
    for (const std::string &name : registeredChecks())
      if (filter.contains(name))
        it->second.push_back(name);
  }
  return it->second;
}

} // namespace afunix::check
