// Where the rule pages are, for the links afunix-check puts in SARIF (helpUri) and afunix-clangd
// in diagnostics (codeDescription.href). Nothing here needs the network; without a configured or
// built-in URL there are no links (SARIF still embeds each page).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace afunix::check {

struct DocsLocation {
  std::string baseUrl; // the docs/ directory as a URL, no trailing '/'; empty: none found
  std::string origin;  // where it came from, for --version and logs
};

// Where rule-page links point, in order: `configured` (a command-line option or config key;
// `origin` names it), the AFUNIX_DOCS_URL environment variable, the URL fixed at build time (CMake
// AFUNIX_DOCS_URL: a packager's published copy of docs/). Nothing else: a file:// link to the
// pages installed on this machine is dead wherever the result is looked at (code scanning, a
// colleague's browser), so it is made only when configured. Empty baseUrl: no links.
DocsLocation findDocs(const std::string &configured, const std::string &origin);

// The rule pages on this machine: installed beside the executable (<prefix>/share/doc/
// afunix-compat, found from bin/; `argv0` locates it) or, in a build tree, the source tree's
// docs/. For messages that say where to read them; "" when there are none.
std::string localDocsDir(const char *argv0);

// An absolute URL (scheme ':' ...), as SARIF's helpUri and LSP's href need; `error` says why not.
bool validDocsUrl(const std::string &url, std::string &error);

// The page of `ruleId` under `docs`, "" when there is no docs location.
std::string ruleDocUrl(const DocsLocation &docs, llvm::StringRef ruleId);

// file:// URL of an absolute path, percent-encoding what RFC 3986 does not allow in a path.
std::string fileUrl(llvm::StringRef absolutePath);

} // namespace afunix::check
