// Baseline files: JSON, one entry per known finding, matched by the same line-independent
// fingerprint SARIF's partialFingerprints carry (rule, relative path, normalised line text,
// occurrence index). Line numbers and messages are stored for people reading diffs, never matched.
#include "Baseline.h"

#include "SafeFiles.h"
#include "Sarif.h"

#include "InputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace afunix::check {

namespace json = llvm::json;

namespace {

constexpr int64_t kFormatVersion = 1;

// Keys are relative to `root`; with no root, to the current directory, so a baseline written
// at the top of a checkout matches in any other clone of it.
std::string effectiveRoot(const std::string &root) {
  if (!root.empty())
    return root;
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd))
    return "";
  return std::string(cwd.str());
}

} // namespace

bool writeBaseline(const std::string &path, const RunResult &result, const std::string &root,
                   std::string &error) {
  std::string base = effectiveRoot(root);
  std::vector<std::string> prints = fingerprints(result, base);
  json::Array entries;
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    const Finding &finding = result.findings[i];
    entries.push_back(json::Object{{"fingerprint", prints[i]},
                                   {"rule", finding.rule},
                                   {"file", relativePath(finding.where.file, base)},
                                   {"line", finding.where.line},
                                   {"code", normaliseLineText(finding.lineText)},
                                   {"message", finding.message}});
  }
  json::Value document = json::Object{{"afunixBaseline", kFormatVersion},
                                      {"tool", "afunix-check"},
                                      {"findings", std::move(entries)}};
  return writeFileReplacing(path, llvm::formatv("{0:2}", document).str() + "\n", "baseline", error);
}

bool loadBaseline(const std::string &path, Baseline &out, std::string &error) {
  out = Baseline();
  out.path = path;
  std::string text, why;
  if (!analysis::readInputFile(path, analysis::kMaxJsonInputBytes, text, why)) {
    error = "cannot read baseline " + why;
    return false;
  }
  std::optional<json::Value> parsed = analysis::parseJson(text, why);
  if (!parsed) {
    error = "baseline '" + path + "' is not valid JSON: " + why;
    return false;
  }
  const json::Object *document = parsed->getAsObject();
  auto malformed = [&](const std::string &what) {
    error = "baseline '" + path + "' is not an afunix-check baseline: " + what +
            " (write one with --write-baseline)";
    return false;
  };
  if (!document)
    return malformed("the top level is not an object");
  std::optional<int64_t> version = document->getInteger("afunixBaseline");
  if (!version)
    return malformed("missing \"afunixBaseline\" format version");
  if (*version != kFormatVersion)
    return malformed(llvm::formatv("format version {0}, this afunix-check reads {1}", *version,
                                   kFormatVersion)
                         .str());
  const json::Array *entries = document->getArray("findings");
  if (!entries)
    return malformed("missing \"findings\" array");
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const json::Object *entry = (*entries)[i].getAsObject();
    std::optional<llvm::StringRef> print = entry ? entry->getString("fingerprint") : std::nullopt;
    if (!print || print->empty())
      return malformed(llvm::formatv("findings[{0}] has no \"fingerprint\" string", i).str());
    ++out.known[print->str()];
  }
  return true;
}

void applyBaseline(const Baseline &baseline, RunResult &result, const std::string &root,
                   unsigned &suppressed) {
  suppressed = 0;
  std::map<std::string, unsigned> known = baseline.known;
  std::vector<std::string> prints = fingerprints(result, effectiveRoot(root));
  std::vector<Finding> kept;
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    auto it = known.find(prints[i]);
    if (it != known.end() && it->second > 0) {
      --it->second;
      ++suppressed;
      continue;
    }
    kept.push_back(std::move(result.findings[i]));
  }
  result.findings = std::move(kept);
  result.dropped.baseline += suppressed;
}

bool applyBaseline(const std::string &path, RunResult &result, const std::string &root,
                   unsigned &suppressed, std::string &error) {
  suppressed = 0;
  Baseline baseline;
  if (!loadBaseline(path, baseline, error))
    return false;
  applyBaseline(baseline, result, root, suppressed);
  return true;
}

} // namespace afunix::check
