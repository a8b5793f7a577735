// Where the rule pages are, for the links afunix-check puts in SARIF (helpUri) and afunix-clangd
// in diagnostics (codeDescription.href). Nothing here needs the network: without a configured
// URL the links point at the pages installed with the tools.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace afunix::check {

struct DocsLocation {
  std::string baseUrl; // the docs/ directory as a URL, no trailing '/'; empty: none found
  std::string origin;  // where it came from, for --version and logs
};

// In order: `configured` (a command-line option or config key; `origin` names it), the
// AFUNIX_DOCS_URL environment variable, the URL fixed at build time (CMake AFUNIX_DOCS_URL, empty
// by default), the docs installed beside the executable (<prefix>/share/doc/afunix-compat, found
// from bin/), and in a build tree the source tree's docs/. `argv0` locates the executable.
DocsLocation findDocs(const std::string &configured, const std::string &origin, const char *argv0);

// An absolute URL (scheme ':' ...), as SARIF's helpUri and LSP's href need; `error` says why not.
bool validDocsUrl(const std::string &url, std::string &error);

// The page of `ruleId` under `docs`, "" when there is no docs location.
std::string ruleDocUrl(const DocsLocation &docs, llvm::StringRef ruleId);

// file:// URL of an absolute path, percent-encoding what RFC 3986 does not allow in a path.
std::string fileUrl(llvm::StringRef absolutePath);

} // namespace afunix::check
