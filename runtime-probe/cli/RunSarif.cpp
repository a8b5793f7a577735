// `afunix-probe run --format sarif`: runtime findings at their source lines, written by
// afunix-check's SARIF writer (checker/engine/Sarif.cpp, the one SARIF writer of the project)
// through the same conversion `afunix-check --runtime-evidence` uses. Builds without the
// checker's writers (the sanitizer builds) say so instead.
#include "RunMerge.h"

#ifdef AFUNIX_PROBE_HAVE_SARIF
#include "RuntimeEvidence.h"
#include "Sarif.h"

#include <algorithm>
#include <tuple>
#endif

namespace afunix::probe {

bool sarifAvailable() {
#ifdef AFUNIX_PROBE_HAVE_SARIF
  return true;
#else
  return false;
#endif
}

bool renderSummarySarif(const RunSummary &summary, const std::string &root, std::string &out, std::string &error) {
#ifdef AFUNIX_PROBE_HAVE_SARIF
  check::RuntimeEvidence evidence;
  if (!check::parseRuntimeEvidence(renderSummaryJson(summary), "afunix-probe run", evidence, error))
    return false;
  check::RunResult result;
  for (const check::RuntimeFinding &f : evidence.findings)
    if (!f.candidate)
      result.findings.push_back(check::toFinding(f));
  std::stable_sort(result.findings.begin(), result.findings.end(), [](const check::Finding &a, const check::Finding &b) {
    return std::tie(a.where.file, a.where.line, a.where.column, a.rule) <
           std::tie(b.where.file, b.where.line, b.where.column, b.rule);
  });
  check::SarifOptions options;
  options.root = root;
  options.toolVersion = AFUNIX_VERSION;
  options.toolName = "afunix-probe";
  out = check::renderSarif(result, options);
  return true;
#else
  (void)summary;
  (void)root;
  (void)out;
  error = "SARIF is not available in this build of afunix-probe: it was built without the checker "
          "(AFUNIX_BUILD_CHECKER=OFF, as the sanitizer builds are), whose SARIF writer it uses; use "
          "--format json, or a regular build";
  return false;
#endif
}

} // namespace afunix::probe
