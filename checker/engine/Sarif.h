// SARIF 2.1.0 for GitHub code scanning and other consumers. Rules metadata comes from the catalog.
#pragma once

#include "Finding.h"

#include <string>

namespace afunix::check {

struct SarifOptions {
  std::string root;         // --sarif-root: artifactLocation.uri is made relative to it
  std::string toolVersion;  // tool.driver.version
  std::string docsBaseUrl;  // helpUri = docsBaseUrl + "/rules/<id>.md"
};

std::string renderSarif(const RunResult &result, const SarifOptions &options);

// partialFingerprints value for a finding: stable when unrelated lines move (rule, relative path,
// normalised line text, occurrence index among identical keys in the file).
std::string fingerprint(const Finding &finding, const std::string &root, unsigned occurrence);

} // namespace afunix::check
