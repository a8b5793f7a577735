#include "Nolint.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cctype>

namespace afunix::check {

namespace {

// clang-tidy's check-name globs: '*' matches anything.
bool globMatches(llvm::StringRef glob, llvm::StringRef name) {
  if (glob.empty())
    return name.empty();
  if (glob.front() == '*') {
    for (std::size_t i = 0; i <= name.size(); ++i)
      if (globMatches(glob.drop_front(), name.drop_front(i)))
        return true;
    return false;
  }
  return !name.empty() && glob.front() == name.front() && globMatches(glob.drop_front(), name.drop_front());
}

// Whether `text` holds the marker `kind` (NOLINT, NOLINTNEXTLINE, ...) that names `rule`:
// without a list it names every check.
bool marks(llvm::StringRef text, llvm::StringRef kind, const std::string &rule) {
  for (std::size_t at = text.find(kind); at != llvm::StringRef::npos; at = text.find(kind, at + 1)) {
    llvm::StringRef rest = text.substr(at + kind.size());
    // NOLINT must not be the start of NOLINTNEXTLINE/NOLINTBEGIN/NOLINTEND.
    if (!rest.empty() && (std::isalnum(static_cast<unsigned char>(rest.front())) || rest.front() == '_'))
      continue;
    if (!rest.starts_with("("))
      return true;
    llvm::StringRef list = rest.drop_front().split(')').first;
    llvm::SmallVector<llvm::StringRef, 4> globs;
    list.split(globs, ',', -1, false);
    for (llvm::StringRef glob : globs)
      if (globMatches(glob.trim(), rule))
        return true;
  }
  return false;
}

} // namespace

bool suppressedByNolint(SourceCache &sources, const std::string &file, unsigned line,
                        const std::string &rule) {
  if (line == 0)
    return false;
  // Only lines that mention NOLINT can suppress: a file with thousands of findings and no marker
  // costs one search, not a scan from its start per finding.
  int open = 0; // NOLINTBEGIN blocks naming this rule, still open
  for (unsigned number : sources.linesMentioning(file, "NOLINT")) {
    if (number > line)
      break;
    llvm::StringRef current = sources.line(file, number);
    if (number == line)
      return open > 0 || marks(current, "NOLINT", rule);
    if (number + 1 == line && marks(current, "NOLINTNEXTLINE", rule))
      return true;
    if (marks(current, "NOLINTBEGIN", rule))
      ++open;
    if (marks(current, "NOLINTEND", rule) && open > 0)
      --open;
  }
  return open > 0;
}

} // namespace afunix::check
