#include "AfunixCheck.h"

#include "Extract.h"
#include "FixPolicy.h"
#include "StoredFacts.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"

#include <atomic>
#include <mutex>
#include <set>

namespace clang::tidy::afunix {

using namespace ast_matchers;
namespace analysis = ::afunix::analysis;

namespace {

// The TU's facts and their link, built by the first rule that asks and shared by the others
// (per thread: clangd builds several ASTs at once), and every check's reports once settled.
struct TuAnalysis {
  const ASTContext *context = nullptr;
  struct Linked {
    ::afunix::facts::Unit unit;
    std::unique_ptr<analysis::Program> program;
    std::shared_ptr<const analysis::StoredFacts> stored; // kept alive while the program uses it
    std::optional<::afunix::facts::Unit> headerBodies;     // StoredFacts::headerBodiesFor()
  };
  std::map<std::string, Linked> programs; // by extraction fingerprint (the options may differ)
  bool evaluated = false;
  std::map<const AfunixCheck *, std::pair<const analysis::Program *, std::vector<analysis::Report>>>
      results;
  std::set<const AfunixCheck *> stoppedAtBound; // checks that stopped at their work bound
};

TuAnalysis &cache() {
  thread_local TuAnalysis state;
  return state;
}

const analysis::Program &programFor(ASTContext &context, const analysis::ProjectOptions &options) {
  TuAnalysis &tu = cache();
  std::string fingerprint = options.extractionFingerprint();
  if (tu.context != &context) {
    tu = TuAnalysis();
    tu.context = &context;
  }
  TuAnalysis::Linked &linked = tu.programs[fingerprint];
  if (linked.program)
    return *linked.program;
  linked.unit = analysis::extractFacts(context, options);
  std::vector<const ::afunix::facts::Unit *> units{&linked.unit};
  // In the editor, the rest of the program comes from the last afunix-check -p run.
  linked.stored = analysis::StoredFacts::forFile(linked.unit.mainFile, fingerprint);
  // The open file joins the program it is built into (its inherited fds are that program's).
  if (linked.stored && linked.unit.target.empty())
    linked.unit.target = linked.stored->targetOf(linked.unit.mainFile);
  if (linked.stored) {
    linked.headerBodies = linked.stored->headerBodiesFor(linked.unit);
    if (linked.headerBodies)
      units.push_back(&*linked.headerBodies);
    for (const ::afunix::facts::Unit *other : linked.stored->unitsExcept(linked.unit.mainFile))
      units.push_back(other);
  }
  linked.program = analysis::Program::link(units);
  return *linked.program;
}

// The afunix checks clang-tidy has made and not yet destroyed, per clang-tidy context (one per
// clangd AST build, one for a whole clang-tidy run), in the order they were made.
std::mutex liveMutex;
std::map<ClangTidyContext *, std::vector<AfunixCheck *>> &liveChecks() {
  static std::map<ClangTidyContext *, std::vector<AfunixCheck *>> live;
  return live;
}

std::atomic<bool> fixesOnNotes{false};

// A catalog message as a clang diagnostic format string.
std::string escapePercent(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

} // namespace

void titleFixesWithNotes(bool on) { fixesOnNotes = on; }

AfunixCheck::AfunixCheck(StringRef name, ClangTidyContext *context, analysis::RuleFunction run)
    : ClangTidyCheck(name, context), Run(run), Name(name.str()), TidyContext(context) {
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    liveChecks()[context].push_back(this);
  }
  auto get = [&](llvm::StringRef option) -> std::optional<std::string> {
    std::optional<StringRef> value = Options.getLocalOrGlobal(option);
    if (!value)
      return std::nullopt;
    RawOptions[option.str()] = value->str();
    return value->str();
  };
  Project = analysis::ProjectOptions::parse(
      get, [&](const std::string &message) { configurationDiag("%0") << message; });
}

AfunixCheck::~AfunixCheck() {
  std::lock_guard<std::mutex> lock(liveMutex);
  auto it = liveChecks().find(TidyContext);
  if (it == liveChecks().end())
    return;
  llvm::erase(it->second, this);
  if (it->second.empty())
    liveChecks().erase(it);
}

void AfunixCheck::storeOptions(ClangTidyOptions::OptionMap &opts) {
  for (const auto &[name, value] : RawOptions)
    Options.store(opts, name, value);
}

void AfunixCheck::registerMatchers(MatchFinder *finder) {
  // Only a trigger for the context: the facts are read in one walk at the end of the TU.
  finder->addMatcher(translationUnitDecl().bind("unit"), this);
}

void AfunixCheck::check(const MatchFinder::MatchResult &result) { Context = result.Context; }

void AfunixCheck::onStartOfTranslationUnit() {
  Context = nullptr;
  // Every check's start runs before any match of the TU: the previous TU's analysis goes here.
  cache() = TuAnalysis();
}

void AfunixCheck::evaluateAllChecks() {
  std::vector<AfunixCheck *> checks;
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    checks = liveChecks()[TidyContext];
  }
  if (!llvm::is_contained(checks, this))
    checks.push_back(this);
  TuAnalysis &tu = cache();
  for (AfunixCheck *check : checks) {
    const analysis::Program &program = programFor(*Context, check->Project);
    analysis::RuleContext rules(program, check->Project, ::afunix::catalog::findRule(check->Name));
    auto &[linked, reports] = tu.results[check];
    linked = &program;
    if (rules.applies()) {
      check->Run(rules);
      reports = std::move(rules.Reports);
      if (rules.Exhausted)
        tu.stoppedAtBound.insert(check);
    }
  }
  // Reports of checks that judge with other options live in other programs: each program's
  // reports are settled on their own (with one set of options, the usual case, all together).
  std::map<const analysis::Program *, std::vector<analysis::Report *>> byProgram;
  for (auto &[check, result] : tu.results)
    for (analysis::Report &r : result.second)
      byProgram[result.first].push_back(&r);
  for (auto &[program, reports] : byProgram)
    ::afunix::rules::settleFixes(*program, reports);
  tu.evaluated = true;
}

void AfunixCheck::onEndOfTranslationUnit() {
  if (!Context)
    return;
  TuAnalysis &tu = cache();
  if (!tu.evaluated || tu.context != Context || !tu.results.count(this))
    evaluateAllChecks();
  auto &[program, reports] = tu.results[this];
  for (const analysis::Report &report : reports)
    emit(*program, report);
  if (tu.stoppedAtBound.count(this)) {
    SourceManager &sm = Context->getSourceManager();
    diag(sm.getLocForStartOfFile(sm.getMainFileID()),
         "%0 stopped at its work bound (%1 judgements): its findings in this program may be incomplete",
         DiagnosticIDs::Warning)
        << Name << static_cast<unsigned>(analysis::RuleContext::kWorkBound);
  }
  Context = nullptr;
}

SourceLocation AfunixCheck::locationOf(const analysis::Program &program, analysis::Id file,
                                       unsigned offset) {
  if (file == analysis::kNone)
    return {};
  SourceManager &sm = Context->getSourceManager();
  llvm::Expected<FileEntryRef> entry = sm.getFileManager().getFileRef(program.files[file]);
  if (!entry) {
    llvm::consumeError(entry.takeError());
    return {};
  }
  FileID id = sm.translateFile(*entry);
  if (id.isInvalid()) // a file of another TU (stored facts): load it for the note
    id = sm.createFileID(*entry, SourceLocation(), SrcMgr::C_User);
  if (id.isInvalid())
    return {};
  return sm.getComposedLoc(id, offset);
}

void AfunixCheck::emit(const analysis::Program &program, const analysis::Report &report) {
  const ::afunix::facts::Site &site = program.sites[report.site];
  // Only a finding located in this TU (its main file or a header it includes) is this file's, as
  // a partial afunix-check run reports it: a finding of another file of the program (stored
  // facts, in the editor) belongs to that file, and clangd would otherwise move it onto one of
  // its notes that lies here.
  if (site.file == analysis::kNone)
    return;
  SourceManager &sources = Context->getSourceManager();
  llvm::Expected<FileEntryRef> own = sources.getFileManager().getFileRef(program.files[site.file]);
  if (!own) {
    llvm::consumeError(own.takeError());
    return;
  }
  if (sources.translateFile(*own).isInvalid())
    return;
  SourceLocation at = locationOf(program, site.file, site.offset);
  if (at.isInvalid())
    return;
  {
    // Warning level: clang-tidy's NOLINT cannot suppress errors; afunix-check applies the
    // catalog severity itself.
    DiagnosticBuilder diagnostic = diag(at, escapePercent(report.message));
    if (site.length > 0)
      diagnostic << CharSourceRange::getCharRange(at, at.getLocWithOffset(site.length));
    if (!fixesOnNotes)
      addFixes(diagnostic, program, report);
  } // emitted here, before its notes
  for (const analysis::ReportNote &note : report.notes) {
    const ::afunix::facts::Site &noted = program.sites[note.site];
    SourceLocation loc = locationOf(program, noted.file, noted.offset);
    if (loc.isValid())
      diag(loc, escapePercent(note.text), DiagnosticIDs::Note);
  }
  if (fixesOnNotes && !report.fixes.empty()) {
    std::string title = report.fixes.front().title;
    if (title.empty())
      title = "Apply the fix-it of " + report.rule;
    DiagnosticBuilder note = diag(at, escapePercent(title), DiagnosticIDs::Note);
    addFixes(note, program, report);
  }
}

void AfunixCheck::addFixes(DiagnosticBuilder &diagnostic, const analysis::Program &program,
                           const analysis::Report &report) {
  // All of a finding's edits or none: FixPolicy.h settled them, and a file clang cannot map
  // would leave half a fix.
  std::vector<FixItHint> hints;
  for (const analysis::ReportEdit &edit : report.fixes) {
    SourceLocation begin = locationOf(program, edit.file, edit.offset);
    if (begin.isInvalid())
      return;
    if (edit.length == 0)
      hints.push_back(FixItHint::CreateInsertion(begin, edit.text));
    else
      hints.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getCharRange(begin, begin.getLocWithOffset(edit.length)), edit.text));
  }
  for (FixItHint &hint : hints)
    diagnostic << hint;
}

} // namespace clang::tidy::afunix
