#include "AfunixCheck.h"

#include "Extract.h"
#include "StoredFacts.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::afunix {

using namespace ast_matchers;
namespace analysis = ::afunix::analysis;

namespace {

// The TU's facts and their link, built by the first rule that asks and shared by the others
// (per thread: clangd builds several ASTs at once).
struct TuAnalysis {
  const ASTContext *context = nullptr;
  std::string fingerprint;
  ::afunix::facts::Unit unit;
  std::unique_ptr<analysis::Program> program;
  std::shared_ptr<const analysis::StoredFacts> stored; // kept alive while the program uses it
};

TuAnalysis &cache() {
  thread_local TuAnalysis state;
  return state;
}

const analysis::Program &programFor(ASTContext &context, const analysis::ProjectOptions &options) {
  TuAnalysis &tu = cache();
  std::string fingerprint = options.extractionFingerprint();
  if (tu.program && tu.context == &context && tu.fingerprint == fingerprint)
    return *tu.program;
  tu.context = &context;
  tu.fingerprint = fingerprint;
  tu.unit = analysis::extractFacts(context, options);
  std::vector<const ::afunix::facts::Unit *> units{&tu.unit};
  // In the editor, the rest of the program comes from the last afunix-check -p run.
  tu.stored = analysis::StoredFacts::forFile(tu.unit.mainFile, fingerprint);
  if (tu.stored)
    for (const ::afunix::facts::Unit *other : tu.stored->unitsExcept(tu.unit.mainFile))
      units.push_back(other);
  tu.program = analysis::Program::link(units);
  return *tu.program;
}

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

AfunixCheck::AfunixCheck(StringRef name, ClangTidyContext *context, analysis::RuleFunction run)
    : ClangTidyCheck(name, context), Run(run), Name(name.str()) {
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

void AfunixCheck::onEndOfTranslationUnit() {
  if (!Context)
    return;
  const analysis::Program &program = programFor(*Context, Project);
  analysis::RuleContext rules(program, Project, ::afunix::catalog::findRule(Name));
  if (rules.applies()) {
    Run(rules);
    for (const analysis::Report &report : rules.Reports)
      emit(program, report);
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
    for (const analysis::ReportEdit &edit : report.fixes) {
      SourceLocation begin = locationOf(program, edit.file, edit.offset);
      if (begin.isInvalid())
        continue;
      if (edit.length == 0)
        diagnostic << FixItHint::CreateInsertion(begin, edit.text);
      else
        diagnostic << FixItHint::CreateReplacement(
            CharSourceRange::getCharRange(begin, begin.getLocWithOffset(edit.length)), edit.text);
    }
  } // emitted here, before its notes
  for (const analysis::ReportNote &note : report.notes) {
    const ::afunix::facts::Site &noted = program.sites[note.site];
    SourceLocation loc = locationOf(program, noted.file, noted.offset);
    if (loc.isValid())
      diag(loc, escapePercent(note.text), DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::afunix
