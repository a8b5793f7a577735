// SARIF 2.1.0 for GitHub code scanning and other consumers. Rules metadata comes from the catalog.
#pragma once

#include "Finding.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace afunix::check {

struct SarifOptions {
  std::string root;         // --sarif-root: artifactLocation.uri is made relative to it
  std::string toolVersion;  // tool.driver.version
  // The docs/ directory as a URL: helpUri = docsBaseUrl + "/rules/<id>.md". Empty: findDocs()
  // (AFUNIX_DOCS_URL, then the URL built in); no helpUri and no links when there is none.
  std::string docsBaseUrl;
  // help.markdown carries the rule's whole page (compiled in), so a viewer shows it offline.
  bool embedRulePages = true;
  std::string toolName;     // tool.driver.name; empty: "afunix-check"
  // %SRCROOT% without a uri: the consumer places the relative locations (a Bazel action's
  // report, whose sandbox path means nothing and would make its bytes differ run to run).
  bool rootUnnamed = false;
};

// SARIF 2.1.0 as GitHub code scanning reads it: rules from the catalog (friendly name, help with
// the rule page, helpUri, security-severity where the rule's check fails open), results whose
// message links each related location ("[accepted here](1)"), fixes and partial fingerprints.
std::string renderSarif(const RunResult &result, const SarifOptions &options);

// partialFingerprints value for a finding: stable when unrelated lines move (rule, relative path,
// normalised line text, occurrence index among identical keys in the file).
std::string fingerprint(const Finding &finding, const std::string &root, unsigned occurrence);

// fingerprint() of every finding of `result`, in order, with the occurrence index counted over
// the findings that share rule, file and normalised line text. Baselines key on the same value.
std::vector<std::string> fingerprints(const RunResult &result, const std::string &root);

// The catalog's YAML block scalars are wrapped at 100 columns; viewers (SARIF, the HTML report)
// wrap text themselves, so single line breaks become spaces and only paragraph breaks stay.
std::string unwrap(llvm::StringRef text);

// The rule's page as compiled in (docs/rules/<id>.md), or "".
llvm::StringRef embeddedRulePage(llvm::StringRef id);

// `file` relative to `root` ('/'-separated, symlinks resolved when the plain paths differ);
// `file` itself when it is not under `root` or `root` is empty.
std::string relativePath(const std::string &file, const std::string &root);

// Whitespace runs collapsed to one space, ends trimmed: indentation changes do not move keys.
std::string normaliseLineText(const std::string &text);

} // namespace afunix::check
