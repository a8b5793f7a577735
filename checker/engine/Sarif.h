// SARIF 2.1.0 for GitHub code scanning and other consumers. Rules metadata comes from the catalog.
#pragma once

#include "Finding.h"

#include <string>
#include <vector>

namespace afunix::check {

struct SarifOptions {
  std::string root;         // --sarif-root: artifactLocation.uri is made relative to it
  std::string toolVersion;  // tool.driver.version
  std::string docsBaseUrl;  // helpUri = docsBaseUrl + "/rules/<id>.md"
  std::string toolName;     // tool.driver.name; "afunix-check" when empty (afunix-probe sets its own)
};

std::string renderSarif(const RunResult &result, const SarifOptions &options);

// partialFingerprints value for a finding: stable when unrelated lines move (rule, relative path,
// normalised line text, occurrence index among identical keys in the file).
std::string fingerprint(const Finding &finding, const std::string &root, unsigned occurrence);

// fingerprint() of every finding of `result`, in order, with the occurrence index counted over
// the findings that share rule, file and normalised line text. Baselines key on the same value.
std::vector<std::string> fingerprints(const RunResult &result, const std::string &root);

// `file` relative to `root` ('/'-separated, symlinks resolved when the plain paths differ);
// `file` itself when it is not under `root` or `root` is empty.
std::string relativePath(const std::string &file, const std::string &root);

// Whitespace runs collapsed to one space, ends trimmed: indentation changes do not move keys.
std::string normaliseLineText(const std::string &text);

} // namespace afunix::check
