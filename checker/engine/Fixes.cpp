// Fix-its out of afunix-check: clang-tidy's --export-fixes YAML (through clang::tooling's own
// YAML traits, so clang-apply-replacements reads exactly what clang-tidy would have written), and
// --fix, which applies them in place.
#include "Fixes.h"

#include "SafeFiles.h"

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

  std::string text;
  {
    llvm::raw_string_ostream out(text);
    llvm::yaml::Output yaml(out);
    yaml << document;
  }
  std::string writeError;
  if (!writeFileReplacing(path, text, "fixes file", writeError)) {
    error += writeError + "\n";
    return false;
  }
  return error.empty();
}

bool applyFixes(const RunResult &result, unsigned &applied, std::string &error,
                const FixOptions &options) {
  applied = 0;
  bool ok = true;
  std::set<std::string> unparsedUnits;
  for (const FileOutcome &file : result.files)
    if (!file.parsed)
      unparsedUnits.insert(file.file);
  // Edits keyed by the real path of their file: a file reached under two names is one file.
  auto realKey = [cache = std::map<std::string, std::string>()](const Edit &edit) mutable {
    auto [it, inserted] = cache.try_emplace(edit.file);
    if (inserted)
      it->second = realPathOf(edit.file);
    return EditKey{it->second, edit.offset, edit.length, edit.text};
  };
  struct Accepted {
    Edit edit; // file = real path
    std::string shownPath;
  };
  // A finding's edits are taken all or none: half a fix-it can leave code that does not compile.
  std::vector<Accepted> accepted;
  std::set<EditKey> acceptedKeys;
  std::set<std::string> reportedUnits;
  for (const Finding &finding : result.findings) {
    if (finding.fixes.empty())
      continue;
    if (!options.fixErrors && unparsedUnits.count(finding.unit)) {
      if (reportedUnits.insert(finding.unit).second)
        error += "'" + finding.unit +
                 "' could not be parsed: its fix-its were not applied (--fix-errors applies them "
                 "anyway)\n";
      ok = false;
      continue;
    }
    std::vector<Accepted> fresh;
    bool conflicting = false;
    for (const Edit &edit : finding.fixes) {
      EditKey key = realKey(edit);
      if (acceptedKeys.count(key))
        continue; // the same edit from another TU, finding or file name: applied once
      Edit real = edit;
      real.file = std::get<0>(key);
      for (const Accepted &other : accepted)
        conflicting |= conflicts(real, other.edit);
      for (const Accepted &mine : fresh)
        conflicting |= conflicts(real, mine.edit);
      fresh.push_back({real, edit.file});
    }
    if (conflicting) {
      error += where(finding) + ": " + finding.rule +
               ": fix-it not applied: it conflicts with another fix-it for the same code\n";
      ok = false;
      continue;
    }
    for (Accepted &a : fresh) {
      acceptedKeys.insert(keyOf(a.edit));
      accepted.push_back(std::move(a));
    }
  }

  std::map<std::string, std::vector<const Accepted *>> byFile;
  for (const Accepted &a : accepted)
    byFile[a.edit.file].push_back(&a);
  for (auto &[file, edits] : byFile) {
    const std::string &shown = edits.front()->shownPath;
    // Every edit of a file must come from the same bytes; two parses that saw different
    // contents (the file changed between them) cannot both be right.
    std::string digest = edits.front()->edit.baseDigest;
    bool oneBase = std::all_of(edits.begin(), edits.end(), [&](const Accepted *a) {
      return a->edit.baseDigest == digest;
    });
    if (!oneBase || digest.empty()) {
      error += "'" + shown +
               "' changed during the analysis (its translation units saw different contents); "
               "not fixed\n";
      ok = false;
      continue;
    }
    // Back to front, so earlier offsets stay valid; at one offset the replacement goes first and
    // an insertion there then lands in front of its new text.
    std::sort(edits.begin(), edits.end(), [](const Accepted *a, const Accepted *b) {
      return std::tie(a->edit.offset, a->edit.length) > std::tie(b->edit.offset, b->edit.length);
    });
    bool inRange = true;
    std::string editError;
    InPlaceEdit outcome = editInPlace(
        file, digest,
        [&](llvm::StringRef old) {
          std::string text = old.str();
          for (const Accepted *a : edits) {
            const Edit &e = a->edit;
            if (e.offset > text.size() || e.length > text.size() - e.offset) {
              inRange = false;
              return old.str();
            }
            text.replace(e.offset, e.length, e.text);
          }
          return text;
        },
        editError);
    if (!inRange) {
      error += "'" + shown + "': a fix-it lies past the end of the file; not fixed\n";
      ok = false;
      continue;
    }
    if (outcome == InPlaceEdit::Written || outcome == InPlaceEdit::Unchanged) {
      applied += outcome == InPlaceEdit::Written ? edits.size() : 0;
      continue;
    }
    error += editError + "\n";
    ok = false;
  }
  return ok;
}

} // namespace afunix::check
