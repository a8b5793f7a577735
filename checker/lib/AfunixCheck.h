// The one clang-tidy check class: every afunix rule is this check with its rule function. It
// reads the project options, extracts the TU's facts once (shared by all rules of the TU), links
// them (with the project's stored facts in the editor, see StoredFacts.h) and turns the rule's
// reports into clang diagnostics with notes and fix-its. It stays per TU in clang-tidy: the
// plugin cannot see the rest of the program.
#pragma once

#include "ClangTidyCheck.h"
#include "Report.h"

#include <map>
#include <string>

namespace clang::tidy::afunix {

// In an editor a quick fix is titled by the note that carries it (clangd makes a note with
// fix-its the title of its code action): afunix-clangd turns this on before clangd starts, and
// each finding's fix-its then go on a note saying what they do instead of on the finding.
void titleFixesWithNotes(bool on);

class AfunixCheck : public ClangTidyCheck {
public:
  AfunixCheck(StringRef name, ClangTidyContext *context, ::afunix::analysis::RuleFunction run);
  ~AfunixCheck() override;
  void storeOptions(ClangTidyOptions::OptionMap &opts) override;
  void registerMatchers(ast_matchers::MatchFinder *finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

private:
  void emit(const ::afunix::analysis::Program &program, const ::afunix::analysis::Report &report);
  void addFixes(DiagnosticBuilder &diagnostic, const ::afunix::analysis::Program &program,
                const ::afunix::analysis::Report &report);
  SourceLocation locationOf(const ::afunix::analysis::Program &program, ::afunix::analysis::Id file,
                            unsigned offset);

  // Runs the rule of every afunix check clang-tidy made for this TU (FixPolicy.h settles their
  // fix-its together), once, for whichever check finishes first; each then emits its own.
  void evaluateAllChecks();

  ::afunix::analysis::RuleFunction Run;
  std::string Name;
  ClangTidyContext *TidyContext;
  std::map<std::string, std::string> RawOptions; // as written, for storeOptions
  ::afunix::analysis::ProjectOptions Project;
  ASTContext *Context = nullptr;
};

} // namespace clang::tidy::afunix
