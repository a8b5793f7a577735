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
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Lex/Lexer.h"
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

// Skip 1 (below): the body of a function declared in a system header, except the standard
// library's templates that forward a parameter pack (emplace_back, the node and allocator
// `construct` it calls, make_unique): their instantiations are what instantiate the program's
// own constructor templates (template <class A> Listener(A &&address)) for the arguments a call
// passes, which the extractor then reads as the program's code. (Only std: a formatting
// library's variadic templates would cost parse time for nothing.)
static bool skipsSystemBody(const clang::SourceManager &sources, const clang::Decl *decl) {
  if (!sources.isInSystemHeader(sources.getExpansionLoc(decl->getLocation())))
    return false;
  const clang::FunctionDecl *fn = decl->getAsFunction();
  if (!fn || !fn->isTemplated() ||
      !llvm::any_of(fn->parameters(), [](const clang::ParmVarDecl *p) { return p->isParameterPack(); }))
    return true;
  const clang::DeclContext *outermost = nullptr;
  for (const clang::DeclContext *dc = fn->getDeclContext(); dc; dc = dc->getParent())
    if (dc->isNamespace())
      outermost = dc;
  return !(outermost && outermost->isStdNamespace());
}

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
    if (context.getExternalSource()) {
      // Parsed with a shared preamble (skip 4): the preamble's declarations were read from it,
      // not handed over one by one; they come first, in the order a parse would hand them over.
      std::vector<clang::Decl *> all;
      for (clang::Decl *decl : context.getTranslationUnitDecl()->decls())
        if (decl->isFromASTFile() && !decl->isImplicit() &&
            !Sources.isInSystemHeader(decl->getLocation()))
          all.push_back(decl);
      all.insert(all.end(), UserDecls.begin(), UserDecls.end());
      UserDecls = std::move(all);
    }
    context.setTraversalScope(UserDecls);
    Out = analysis::extractFacts(context, Options);
  }
  // Skip 1: the bodies of functions declared in system headers. The extractor never walks a
  // declaration from a system header (ExtractorImpl.h, TraverseDecl) and reads nothing out of a
  // callee's body, only its declaration (parameters, return type, record fields and methods), so
  // no fact can come from such a body. clang still parses every body it must to type the rest:
  // Sema::canSkipFunctionBody refuses constexpr functions and those with a deduced return type
  // before asking here; an instantiation of a skipped template body is empty, which no fact
  // reads either. What is lost: errors inside those bodies (glibc's and libstdc++'s inline
  // functions), which are not the program's.
  bool shouldSkipFunctionBody(clang::Decl *decl) override {
    return !FullParse && skipsSystemBody(Sources, decl);
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
    if (Inputs) {
      CacheInputs own = inputsOf(getCompilerInstance().getSourceManager());
      Inputs->insert(Inputs->end(), own.begin(), own.end());
      std::sort(Inputs->begin(), Inputs->end());
      Inputs->erase(std::unique(Inputs->begin(), Inputs->end()), Inputs->end());
    }
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
    std::string key = shapeKey(job, input);
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

  // What jobs compiled alike share: directory, language, the command but for its input.
  static std::string shapeKey(const CompileJob &job, int input) {
    std::string key = job.directory + '\0' + llvm::sys::path::extension(job.file).str();
    for (std::size_t i = 0; i < job.argv.size(); ++i)
      key += '\0' + (int(i) == input ? std::string("\1input") : job.argv[i]);
    return key;
  }

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

private:
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

// Skip 4: the parse of a header prefix many files share. Files compiled alike often begin with
// the same lines (a licence, then the same #includes): a database's files grouped by command, the
// longest such prefix that ends on a line boundary outside any comment or #if is parsed once into
// a preamble (clang's PrecompiledPreamble, as clangd keeps one per file) and every file that
// begins with exactly those bytes is parsed from there: the preprocessor skips the prefix and
// reads its declarations, macros and state from the preamble. That is the parse of those bytes,
// under the same command, in the same directory, of the same headers (read once per run: skip 3),
// so nothing a parse of the whole file would see differs; clang checks the prefix byte for byte
// and the preamble's headers unchanged (PrecompiledPreamble::CanReuse) before each use. The
// preamble's declarations reach the extractor in the order a parse hands them over
// (ExtractConsumer), and the files it read are the file's inputs for the facts cache. A prefix
// shared by fewer than kMinShare files, or one whose parse reports an error, is not used.
// C++ only: C headers parse in about a millisecond, as long as loading a preamble takes (skalibs,
// 838 files, 52 preambles: 2.44 s CPU with them, 2.41 s without); the C++ standard headers take
// 50-100 ms (20 files beginning with <map>, <memory>, <string>, <vector>: 0.43 s with one
// preamble, 1.60 s without, 2.56 s with --full-parse).
class Preambles {
public:
  static constexpr std::size_t kMinShare = 3;

  struct Group {
    std::once_flag once;
    std::size_t job = 0;   // the file whose prefix is built
    std::string builtFrom; // its path, as the facts cache records inputs
    unsigned bytes = 0;    // the prefix's length
    std::unique_ptr<clang::PrecompiledPreamble> preamble; // null: not built or not usable
    CacheInputs inputs;    // the files the preamble's parse read
    std::atomic<std::size_t> users{0};
  };

  // Plans the groups of the jobs `parsed` names (their main files read through `files`).
  Preambles(const std::vector<CompileJob> &jobs, const std::vector<std::size_t> &parsed,
            RunFiles &files)
      : GroupOf(jobs.size(), -1) {
    std::map<std::string, std::vector<std::size_t>> byShape;
    std::vector<std::string> texts(jobs.size());
    auto real = vfs::getRealFileSystem();
    for (std::size_t i : parsed) {
      clang::LangOptions lang;
      llvm::StringRef ext = llvm::sys::path::extension(jobs[i].file);
      lang.CPlusPlus = ext != ".c" && ext != ".i";
      if (!lang.CPlusPlus)
        continue;
      int input = DriverCache::inputIndex(jobs[i]);
      if (input < 0)
        continue;
      llvm::ErrorOr<std::shared_ptr<const RunFiles::Content>> content =
          files.content(jobs[i].file, *real);
      if (!content || !*content)
        continue;
      llvm::StringRef bytes = (*content)->bytes->getBuffer();
      texts[i] = bytes.take_front(clang::Lexer::ComputePreamble(bytes, lang).Size).str();
      byShape[DriverCache::shapeKey(jobs[i], input)].push_back(i);
    }
    // Candidates: every shareable prefix of every file; the most valuable claimed first.
    struct Candidate {
      std::vector<std::size_t> jobs;
      unsigned bytes = 0, includes = 0;
    };
    llvm::StringMap<Candidate> candidates;
    for (auto &[shape, members] : byShape) {
      if (members.size() < kMinShare)
        continue;
      for (std::size_t i : members)
        for (auto [end, includes] : cutPoints(texts[i])) {
          std::string key = fileDigest(shape + '\0' + texts[i].substr(0, end));
          Candidate &c = candidates[key];
          c.jobs.push_back(i);
          c.bytes = end;
          c.includes = includes;
        }
    }
    std::vector<Candidate *> order;
    for (auto &entry : candidates)
      if (entry.second.jobs.size() >= kMinShare)
        order.push_back(&entry.second);
    std::sort(order.begin(), order.end(), [](const Candidate *a, const Candidate *b) {
      std::size_t va = (a->jobs.size() - 1) * a->includes, vb = (b->jobs.size() - 1) * b->includes;
      return va != vb ? va > vb : a->jobs.front() < b->jobs.front();
    });
    for (Candidate *c : order) {
      std::vector<std::size_t> free;
      for (std::size_t j : c->jobs)
        if (GroupOf[j] < 0)
          free.push_back(j);
      if (free.size() < kMinShare)
        continue;
      auto group = std::make_unique<Group>();
      group->job = free.front();
      group->bytes = c->bytes;
      group->users = free.size();
      for (std::size_t j : free)
        GroupOf[j] = static_cast<int>(Groups.size());
      Groups.push_back(std::move(group));
    }
  }

  Group *groupOf(std::size_t job) {
    return GroupOf[job] < 0 ? nullptr : Groups[GroupOf[job]].get();
  }
  std::size_t groups() const { return Groups.size(); }

  // Where a prefix of `text` (a preamble region) may end: after a whole line, outside a block
  // comment and every #if, with at least one #include before. (offset, #includes before it).
  static std::vector<std::pair<unsigned, unsigned>> cutPoints(llvm::StringRef text) {
    std::vector<std::pair<unsigned, unsigned>> cuts;
    bool comment = false;
    int depth = 0;
    unsigned includes = 0;
    std::size_t at = 0;
    while (at < text.size()) {
      std::size_t end = text.find('\n', at);
      if (end == llvm::StringRef::npos)
        break; // a last line without its newline is not a whole line
      llvm::StringRef line = text.slice(at, end);
      llvm::StringRef code = line.trim();
      if (!comment && code.consume_front("#")) {
        code = code.ltrim();
        if (code.starts_with("if")) // if, ifdef, ifndef
          ++depth;
        else if (code.starts_with("endif"))
          --depth;
        else if (code.starts_with("include") || code.starts_with("import"))
          ++includes;
      }
      // Block comments opened and closed on the line (the preamble holds no strings).
      for (std::size_t i = 0; i + 1 < line.size(); ++i) {
        if (!comment && line[i] == '/' && line[i + 1] == '*') {
          comment = true;
          ++i;
        } else if (comment && line[i] == '*' && line[i + 1] == '/') {
          comment = false;
          ++i;
        } else if (!comment && line[i] == '/' && line[i + 1] == '/') {
          break;
        }
      }
      at = end + 1;
      if (!comment && depth == 0 && !line.ends_with("\\") && includes > 0)
        cuts.push_back({static_cast<unsigned>(at), includes});
    }
    return cuts;
  }

private:
  std::vector<int> GroupOf;
  std::vector<std::unique_ptr<Group>> Groups;
};

// Collects what building a preamble read, and skips the same bodies a parse skips.
class PreambleWatch : public clang::PreambleCallbacks {
public:
  explicit PreambleWatch(CacheInputs &inputs) : Inputs(inputs) {}
  void AfterExecute(clang::CompilerInstance &compiler) override {
    // Not the main file: the preamble saw only its prefix, and each file adds its own bytes.
    clang::SourceManager &sources = compiler.getSourceManager();
    clang::OptionalFileEntryRef main = sources.getFileEntryRefForID(sources.getMainFileID());
    std::string mainPath;
    if (main) {
      llvm::SmallString<256> path(main->getName());
      sources.getFileManager().makeAbsolutePath(path);
      llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/false);
      mainPath = std::string(path);
    }
    for (auto &input : inputsOf(sources))
      if (input.first != mainPath)
        Inputs.push_back(std::move(input));
    Sources = &sources;
  }
  void BeforeExecute(clang::CompilerInstance &compiler) override {
    Sources = &compiler.getSourceManager();
  }
  bool shouldSkipFunctionBody(clang::Decl *decl) override { // skip 1, as ExtractConsumer
    return Sources && skipsSystemBody(*Sources, decl);
  }

private:
  CacheInputs &Inputs;
  clang::SourceManager *Sources = nullptr;
};

// The cc1 arguments' CompilerInvocation, or null.
std::shared_ptr<clang::CompilerInvocation> invocationFrom(const std::vector<std::string> &cc1,
                                                          const std::string &argv0,
                                                          clang::DiagnosticConsumer &errors) {
  std::vector<const char *> args;
  for (std::size_t i = 1; i < cc1.size(); ++i) // after "-cc1"
    args.push_back(cc1[i].c_str());
  auto options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::DiagnosticsEngine diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), &*options,
                                 &errors, /*ShouldOwnClient=*/false);
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, args, diags, argv0.c_str()) ||
      diags.hasErrorOccurred())
    return nullptr;
  return invocation;
}

// Builds the group's preamble from its first file (once, on the first file that needs it).
void buildPreamble(Preambles::Group &group, const CompileJob &job, const std::vector<std::string> &cc1,
                   llvm::IntrusiveRefCntPtr<vfs::FileSystem> fs, RunFiles &files) {
  std::vector<std::string> errors;
  ErrorCollector collector(errors);
  std::shared_ptr<clang::CompilerInvocation> invocation = invocationFrom(cc1, job.argv[0], collector);
  llvm::ErrorOr<std::shared_ptr<const RunFiles::Content>> content = files.content(job.file, *fs);
  if (!invocation || !content || !*content)
    return;
  invocation->getFrontendOpts().SkipFunctionBodies = true;
  auto options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  // Reference-counted: the CompilerInstance Build makes holds it too.
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diags =
      clang::CompilerInstance::createDiagnostics(options.get(), &collector, /*ShouldOwnClient=*/false);
  std::unique_ptr<llvm::MemoryBuffer> main = llvm::MemoryBuffer::getMemBuffer(
      (*content)->bytes->getBuffer(), job.file, /*RequiresNullTerminator=*/true);
  PreambleWatch watch(group.inputs);
  llvm::ErrorOr<clang::PrecompiledPreamble> built = clang::PrecompiledPreamble::Build(
      *invocation, main.get(), clang::PreambleBounds(group.bytes, true), *diags, fs,
      std::make_shared<clang::PCHContainerOperations>(), /*StoreInMemory=*/false,
      /*StoragePath=*/"", watch);
  if (built && errors.empty())
    group.preamble = std::make_unique<clang::PrecompiledPreamble>(std::move(*built));
  llvm::SmallString<256> path(job.file);
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/false);
  group.builtFrom = std::string(path);
}

// Parses `job` from its group's preamble. False (nothing done) when the preamble does not fit it.
bool parseWithPreamble(Preambles::Group &group, std::size_t self, const CompileJob &job,
                       const std::vector<std::string> &cc1,
                       llvm::IntrusiveRefCntPtr<vfs::FileSystem> fs,
                       const analysis::ProjectOptions &options, const ExtractionSettings &settings,
                       ErrorCollector &collector, facts::Unit &unit, CacheInputs *inputs) {
  std::shared_ptr<clang::CompilerInvocation> invocation = invocationFrom(cc1, job.argv[0], collector);
  llvm::ErrorOr<std::unique_ptr<vfs::File>> file = fs->openFileForRead(job.file);
  if (!invocation || !file)
    return false;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> main = (*file)->getBuffer(job.file);
  if (!main)
    return false;
  clang::PreambleBounds bounds(group.bytes, true);
  if (!group.preamble->CanReuse(*invocation, (*main)->getMemBufferRef(), bounds, *fs))
    return false;
  group.preamble->AddImplicitPreamble(*invocation, fs, main->release());
  if (inputs)
    *inputs = group.inputs;
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), fs);
  clang::CompilerInstance compiler(std::make_shared<clang::PCHContainerOperations>());
  compiler.setInvocation(std::move(invocation));
  compiler.setFileManager(files.get());
  compiler.createDiagnostics(&collector, /*ShouldOwnClient=*/false);
  compiler.createSourceManager(*files);
  ExtractAction action(options, unit, settings.extract, settings.fullParse, inputs);
  compiler.ExecuteAction(action);
  if (inputs && group.job != self) {
    // The preamble names the file it was built from, with only its prefix as bytes: not an
    // input of this file (whose own bytes, prefix included, are).
    llvm::erase_if(*inputs, [&](const auto &input) { return input.first == group.builtFrom; });
  }
  return true;
}

struct Parsed {
  facts::Unit unit;
  FileOutcome outcome;
  bool fromPreamble = false;
  bool completed = true; // false: clang crashed; nothing of it is kept or cached
};

Parsed parseJob(std::size_t index, const CompileJob &job,
                const analysis::ProjectOptions &options, const ExtractionSettings &settings,
                RunFiles *shared, DriverCache *drivers, Preambles::Group *group,
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
    if (group && shared && !argv.empty()) {
      std::vector<std::string> cc1(argv.begin() + 1, argv.end());
      std::call_once(group->once, [&] {
        group->job = index; // the first file to get here builds it (the prefix is the same in all)
        buildPreamble(*group, job, cc1, fs, *shared);
      });
      if (group->preamble && parseWithPreamble(*group, index, job, cc1, fs, options, settings,
                                               collector, result.unit, inputs)) {
        ran = true;
        result.fromPreamble = true;
        return;
      }
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

struct ExtractionSession {
  RunFiles files;
  DriverCache drivers;
};

std::shared_ptr<ExtractionSession> newExtractionSession() {
  return std::make_shared<ExtractionSession>();
}

std::vector<ExtractedUnit> extractUnits(const std::vector<CompileJob> &jobs,
                                        const std::vector<const analysis::ProjectOptions *> &project,
                                        const ExtractionSettings &settings) {
  std::vector<ExtractedUnit> out(jobs.size());
  FactsCache *cache = settings.extract ? settings.cache : nullptr;
  std::atomic<std::size_t> next{0}, cached{0}, rejected{0};
  std::mutex reportLock;
  std::size_t done = 0;
  unsigned threads = std::max(1u, std::min<unsigned>(settings.jobs, jobs.size()));
  auto report = [&](std::size_t i) {
    if (settings.progress) {
      std::lock_guard<std::mutex> guard(reportLock);
      settings.progress(++done, jobs.size(), jobs[i].file, out[i].fromCache);
    }
  };

  // First what the facts cache knows (in parallel: checking inputs reads files).
  std::vector<std::string> keys(jobs.size());
  if (cache) {
    runIsolatedWorkers(threads, [&](unsigned, Isolate) {
      for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();) {
        keys[i] = cache->keyOf(jobs[i], project[i]->extractionFingerprint());
        FactsCache::Entry entry;
        std::string why;
        bool inputs = i < settings.wantInputs.size() && settings.wantInputs[i];
        FactsCache::Lookup found = cache->lookup(keys[i], entry, why, inputs);
        if (found == FactsCache::Lookup::Hit) {
          ExtractedUnit &unit = out[i];
          unit.unit = std::move(entry.unit);
          unit.inputs = std::move(entry.inputs);
          unit.digest = std::move(entry.digest);
          unit.outcome.file = jobs[i].file;
          unit.outcome.parsed = entry.parsed;
          unit.outcome.errors = std::move(entry.errors);
          unit.fromCache = true;
          ++cached;
          report(i);
        } else if (found == FactsCache::Lookup::Rejected) {
          ++rejected;
          std::lock_guard<std::mutex> guard(reportLock);
          llvm::errs() << "afunix-check: warning: facts cache entry " << why
                       << "; not used, the file is parsed again\n";
        }
      }
    });
  }
  std::vector<std::size_t> misses;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!out[i].fromCache)
      misses.push_back(i);

  // Then the parses, with what a cold scan shares between files.
  // What the file system and the driver said, for this call or (ExtractionSettings::session) for
  // every call of the run.
  std::optional<ExtractionSession> own;
  RunFiles *shared = nullptr;
  DriverCache *drivers = nullptr;
  std::optional<Preambles> preambles;
  if (!settings.fullParse && !misses.empty()) {
    ExtractionSession &session = settings.session ? *settings.session : own.emplace();
    shared = &session.files;
    drivers = &session.drivers;
    if (settings.extract && !settings.noPreambles)
      preambles.emplace(jobs, misses, *shared);
  }
  std::atomic<std::size_t> preambleParses{0};
  bool storeFailed = false;
  next = 0;
  threads = std::max(1u, std::min<unsigned>(settings.jobs, misses.size()));
  if (!misses.empty())
    runIsolatedWorkers(threads, [&](unsigned, Isolate isolate) {
      for (std::size_t m; (m = next.fetch_add(1)) < misses.size();) {
        std::size_t i = misses[m];
        ExtractedUnit &unit = out[i];
        CacheInputs inputs;
        bool wantInputs = i < settings.wantInputs.size() && settings.wantInputs[i];
        Preambles::Group *group = preambles ? preambles->groupOf(i) : nullptr;
        Parsed parsed = parseJob(i, jobs[i], *project[i], settings, shared, drivers, group,
                                 cache || wantInputs ? &inputs : nullptr, isolate);
        if (wantInputs)
          for (const auto &[path, digest] : inputs)
            unit.inputs.push_back(path);
        preambleParses += parsed.fromPreamble;
        unit.unit = std::move(parsed.unit);
        unit.outcome = std::move(parsed.outcome);
        std::string error;
        if (cache && parsed.completed && !inputs.empty() &&
            !cache->store(keys[i], inputs, unit.unit, unit.outcome.parsed, unit.outcome.errors,
                          unit.digest, error)) {
          std::lock_guard<std::mutex> guard(reportLock);
          if (!storeFailed)
            llvm::errs() << "afunix-check: warning: facts cache: " << error
                         << "; facts are not cached\n";
          storeFailed = true;
        }
        if (group && --group->users == 0)
          group->preamble.reset(); // its last file is done: the PCH file goes
        report(i);
      }
    });
  if (settings.stats) {
    settings.stats->cached += cached;
    settings.stats->extracted += jobs.size() - cached;
    settings.stats->cacheRejected += rejected;
    settings.stats->preambles += preambles ? preambles->groups() : 0;
    settings.stats->fromPreamble += preambleParses;
  }
  return out;
}

} // namespace afunix::check
