// Shared plumbing of the credential checks (afunix-creds-without-passcred,
// afunix-passcred-too-late, afunix-passcred-wrong-family): the options that configure the socket
// model, the catalog message of a variant with {placeholders} filled, the TargetKernel filter,
// and the TU's SocketModel, built once and shared by the three checks.
#pragma once

#include "CatalogMessage.h"
#include "ClangTidyCheck.h"
#include "SocketModel.h"
#include "afunix/RuleCatalog.h"

#include <map>
#include <optional>
#include <string>

namespace clang::tidy::afunix {

class CredCheckBase : public ClangTidyCheck {
public:
  CredCheckBase(StringRef name, ClangTidyContext *context);
  void storeOptions(ClangTidyOptions::OptionMap &opts) override;
  void registerMatchers(ast_matchers::MatchFinder *finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

protected:
  virtual void checkModel(const SocketModel &model) = 0;

  // The variant `id` if the rule and the variant apply to TargetKernel (all do when unset).
  const ::afunix::catalog::Variant *variant(StringRef id) const;
  // Emits the finding of `chosen` at `loc` with its placeholders filled.
  DiagnosticBuilder report(SourceLocation loc, const ::afunix::catalog::Variant &chosen,
                           const std::map<std::string, std::string> &fill);
  // Same, at a call: the call's range goes with the finding, so editors (clangd) underline the
  // call instead of deriving a range from the fix-it's edits.
  DiagnosticBuilder report(const Site &site, const ::afunix::catalog::Variant &chosen,
                           const std::map<std::string, std::string> &fill);
  void note(SourceLocation loc, StringRef text);
  // For an accepted socket: where its listener was created.
  void noteListener(const SocketModel &model, const CreateFact &accepted);
  bool pedantic() const { return Pedantic; }

  const ::afunix::catalog::Rule *Rule;

private:
  std::string SocketProducers;
  std::string OptionWrappers;
  std::string ExternalSocketSources;
  std::string TargetKernel;
  bool Pedantic;
  std::optional<::afunix::KernelVersion> Kernel;
  ModelConfig Config;
  ASTContext *Context = nullptr;
};

// A finding names at most this many sockets in notes (a merged place can carry thousands).
inline constexpr size_t kMaxOriginNotes = 3;

// Queries over the model shared by the credential checks.
enum class Passcred { Enabled, Never, Unknown };
// A socket the program creates itself (socket(), socketpair(), accept(), a configured producer).
bool createdHere(CreateHow how);
// setsockopt(SO_PASSCRED) with a value that is not a constant 0.
bool enablesPasscred(const OptionFact &option);
bool reaches(const SocketModel &model, unsigned origin, LocId loc);
// Whether SO_PASSCRED reaches the socket created by `origin` where it gates delivery: on the
// socket itself or, for an accepted socket, on its listener (inherited since 3.12).
Passcred passcredReaching(const SocketModel &model, unsigned origin);


// Source edits shared by the fix-its.
namespace edits {
// The statement around `expr` that is a direct child of a compound statement, and that compound.
std::pair<const Stmt *, const CompoundStmt *> enclosingStatement(const Expr *expr,
                                                                 ASTContext &context);
// The statement's text range in the file, including a trailing ';', or invalid for macros.
CharSourceRange statementRange(const Stmt *stmt, ASTContext &context);
// `range` grown to its whole lines (and the newline before them) when nothing else is on them.
CharSourceRange wholeLines(CharSourceRange range, ASTContext &context);
// The whitespace that starts the line of `loc`.
std::string indentationAt(SourceLocation loc, ASTContext &context);
} // namespace edits

} // namespace clang::tidy::afunix
