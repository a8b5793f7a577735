// Fix-its out of afunix-check: clang-tidy's --export-fixes YAML (through clang::tooling's own
// YAML traits, so clang-apply-replacements reads exactly what clang-tidy would have written), and
// --fix, which applies them in place.
#include "Fixes.h"

#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace afunix::check {

namespace {

using EditKey = std::tuple<std::string, unsigned, unsigned, std::string>;

EditKey keyOf(const Edit &edit) { return {edit.file, edit.offset, edit.length, edit.text}; }

std::string where(const Finding &finding) {
  return llvm::formatv("{0}:{1}:{2}", finding.where.file, finding.where.line,
                       finding.where.column)
      .str();
}

// Byte offset of a 1-based line/column, or 0 when the file cannot be read.
unsigned offsetOf(const SourcePoint &point) {
  auto buffer = llvm::MemoryBuffer::getFile(point.file, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer || point.line == 0)
    return 0;
  llvm::StringRef text = (*buffer)->getBuffer();
  size_t offset = 0;
  for (unsigned line = 1; line < point.line; ++line) {
    size_t nl = text.find('\n', offset);
    if (nl == llvm::StringRef::npos)
      return 0;
    offset = nl + 1;
  }
  return static_cast<unsigned>(offset + (point.column ? point.column - 1 : 0));
}

// Two edits of one file that cannot both be applied with one meaning: overlapping replaced
// ranges, an insertion strictly inside a replaced range, or two different insertions at one
// offset (their order would be a guess).
bool conflicts(const Edit &a, const Edit &b) {
  if (a.file != b.file)
    return false;
  unsigned aEnd = a.offset + a.length, bEnd = b.offset + b.length;
  if (a.length && b.length)
    return a.offset < bEnd && b.offset < aEnd;
  if (!a.length && !b.length)
    return a.offset == b.offset && a.text != b.text;
  const Edit &insertion = a.length ? b : a;
  const Edit &range = a.length ? a : b;
  return range.offset < insertion.offset && insertion.offset < range.offset + range.length;
}

bool writeFile(const std::string &path, llvm::StringRef contents, std::string &error) {
  llvm::SmallString<256> temp;
  int fd = -1;
  llvm::SmallString<256> model(path);
  model += ".afunix-%%%%%%";
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp)) {
    error += "cannot write '" + path + "': " + ec.message() + "\n";
    return false;
  }
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << contents;
    out.flush();
    if (out.has_error()) {
      error += "cannot write '" + path + "': " + out.error().message() + "\n";
      out.clear_error();
      llvm::sys::fs::remove(temp);
      return false;
    }
  }
  // Keep the edited file's mode (an executable script stays executable).
  if (llvm::ErrorOr<llvm::sys::fs::perms> mode = llvm::sys::fs::getPermissions(path))
    llvm::sys::fs::setPermissions(temp, *mode);
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    error += "cannot replace '" + path + "': " + ec.message() + "\n";
    llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}

} // namespace

bool exportFixes(const std::string &path, const RunResult &result, std::string &error) {
  llvm::SmallString<256> cwd;
  llvm::sys::fs::current_path(cwd);

  clang::tooling::TranslationUnitDiagnostics document;
  if (!result.files.empty())
    document.MainSourceFile = result.files.front().file;
  else if (!result.findings.empty())
    document.MainSourceFile = result.findings.front().where.file;

  // The same header finding reached from several TUs carries the same edit: export it once, or
  // clang-apply-replacements would see two edits of one range and refuse both.
  std::set<EditKey> exported;
  for (const Finding &finding : result.findings) {
    clang::tooling::Diagnostic diagnostic;
    diagnostic.DiagnosticName = finding.rule;
    diagnostic.DiagLevel = finding.severity == "error" ? clang::tooling::Diagnostic::Error
                                                        : clang::tooling::Diagnostic::Warning;
    diagnostic.BuildDirectory = std::string(cwd.str());
    diagnostic.Message.Message = finding.message;
    diagnostic.Message.FilePath = finding.where.file;
    diagnostic.Message.FileOffset = offsetOf(finding.where);
    for (const Edit &edit : finding.fixes) {
      if (!exported.insert(keyOf(edit)).second)
        continue;
      clang::tooling::Replacement replacement(edit.file, edit.offset, edit.length, edit.text);
      if (llvm::Error err = diagnostic.Message.Fix[edit.file].add(replacement)) {
        error += where(finding) + ": " + finding.rule +
                 ": fix-it has overlapping edits, not exported: " +
                 llvm::toString(std::move(err)) + "\n";
        diagnostic.Message.Fix.clear();
        break;
      }
    }
    for (const Note &note : finding.notes) {
      clang::tooling::DiagnosticMessage message(note.message);
      message.FilePath = note.where.file;
      message.FileOffset = offsetOf(note.where);
      diagnostic.Notes.push_back(std::move(message));
    }
    document.Diagnostics.push_back(std::move(diagnostic));
  }

  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error += "cannot write fixes to '" + path + "': " + ec.message() + "\n";
    return false;
  }
  llvm::yaml::Output yaml(out);
  yaml << document;
  out.flush();
  if (out.has_error()) {
    error += "cannot write fixes to '" + path + "': " + out.error().message() + "\n";
    out.clear_error();
    return false;
  }
  return error.empty();
}

bool applyFixes(const RunResult &result, unsigned &applied, std::string &error) {
  applied = 0;
  bool ok = true;
  // A finding's edits are taken all or none: half a fix-it can leave code that does not compile.
  std::vector<Edit> accepted;
  std::set<EditKey> acceptedKeys;
  for (const Finding &finding : result.findings) {
    std::vector<const Edit *> fresh;
    bool conflicting = false;
    for (const Edit &edit : finding.fixes) {
      if (acceptedKeys.count(keyOf(edit)))
        continue; // the same edit from another TU or finding: applied once
      for (const Edit &other : accepted)
        if (conflicts(edit, other))
          conflicting = true;
      for (const Edit *mine : fresh)
        if (conflicts(edit, *mine))
          conflicting = true;
      fresh.push_back(&edit);
    }
    if (conflicting) {
      error += where(finding) + ": " + finding.rule +
               ": fix-it not applied: it conflicts with another fix-it for the same code\n";
      ok = false;
      continue;
    }
    for (const Edit *edit : fresh) {
      accepted.push_back(*edit);
      acceptedKeys.insert(keyOf(*edit));
    }
  }

  std::map<std::string, std::vector<const Edit *>> byFile;
  for (const Edit &edit : accepted)
    byFile[edit.file].push_back(&edit);
  for (auto &[file, edits] : byFile) {
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      error += "cannot read '" + file + "' to fix it: " + buffer.getError().message() + "\n";
      ok = false;
      continue;
    }
    std::string text = (*buffer)->getBuffer().str();
    // Back to front, so earlier offsets stay valid; at one offset the replacement goes first and
    // an insertion there then lands in front of its new text.
    std::sort(edits.begin(), edits.end(), [](const Edit *a, const Edit *b) {
      return std::tie(a->offset, a->length) > std::tie(b->offset, b->length);
    });
    bool inRange = std::all_of(edits.begin(), edits.end(), [&](const Edit *e) {
      return e->offset <= text.size() && e->length <= text.size() - e->offset;
    });
    if (!inRange) {
      error += "'" + file + "' changed since it was checked (a fix-it lies past its end); not fixed\n";
      ok = false;
      continue;
    }
    for (const Edit *edit : edits)
      text.replace(edit->offset, edit->length, edit->text);
    if (!writeFile(file, text, error)) {
      ok = false;
      continue;
    }
    applied += edits.size();
  }
  return ok;
}

} // namespace afunix::check
