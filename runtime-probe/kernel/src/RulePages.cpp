// The "Measured" table of each rule page: every variant's claim beside what the experiments it
// names (rules/*.yaml `experiment:`) observed on a real kernel. `afunix-probe kernel --rule-pages`
// writes it; a kernel test re-runs the experiments and fails when a page says something else.
#include "afunix/kernel/RulePages.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <sys/utsname.h>

#include "afunix/RuleCatalog.h"
#include "afunix/kernel/ExperimentRegistry.h"

namespace afunix::kernel {

namespace {

constexpr const char *kBegin = "<!-- measured:begin (afunix-probe kernel --rule-pages) -->";
constexpr const char *kEnd = "<!-- measured:end -->";

std::vector<std::string> split(const char *list) {
  std::vector<std::string> out;
  std::string item;
  for (const char *p = list; ; ++p) {
    if (*p == ',' || !*p) {
      if (!item.empty())
        out.push_back(item);
      item.clear();
      if (!*p)
        break;
    } else {
      item += *p;
    }
  }
  return out;
}

// Markdown table cells: one line, no bare pipe.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '\n')
      out += ' ';
    else if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string whatItDid(const KernelReport &report, const std::string &key) {
  for (const Observation &o : report.observations)
    if (o.experiment == key) {
      if (o.status != Status::Ok)
        return std::string("not measured (") + statusName(o.status) + ": " + o.reason + ")";
      return o.verdict.empty() ? "(no verdict)" : o.verdict;
    }
  return "not run";
}

} // namespace

std::string kernelSeries() {
  utsname u{};
  uname(&u);
  KernelVersion version;
  if (!KernelVersion::parse(u.release, version))
    return u.release;
  return std::to_string(version.major) + "." + std::to_string(version.minor);
}

std::vector<std::string> linkedExperiments() {
  std::vector<std::string> keys;
  for (std::size_t r = 0; r < catalog::kRuleCount; ++r)
    for (std::size_t v = 0; v < catalog::kRules[r].variantCount; ++v)
      for (const std::string &key : split(catalog::kRules[r].variants[v].experiments))
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
          keys.push_back(key);
  // In the order `afunix-probe kernel` runs them.
  std::vector<std::string> ordered;
  for (const ExperimentKey &key : kExperimentKeys)
    if (std::find(keys.begin(), keys.end(), key.name) != keys.end())
      ordered.push_back(key.name);
  return ordered;
}

std::string measuredBlock(const catalog::Rule &rule, const KernelReport &report) {
  KernelVersion running;
  utsname u{};
  uname(&u);
  bool known = KernelVersion::parse(u.release, running);
  std::string out = std::string(kBegin) + "\n";
  out += "## Measured\n\n";
  out += "What `afunix-probe kernel` observed on Linux " + kernelSeries() +
         " for each message of this rule: the experiment named by the variant's `experiment:` in "
         "the catalog, and its verdict. `afunix-probe kernel --rule-pages docs/rules` writes this "
         "table; a kernel test re-runs the experiments and fails where it and the kernel "
         "disagree. Numbers are in each experiment's `evidence` (`afunix-probe kernel --only "
         "NAME`).\n\n";
  out += "| variant | claim | applies to this kernel | experiment | what the kernel did |\n";
  out += "|---|---|---|---|---|\n";
  for (std::size_t v = 0; v < rule.variantCount; ++v) {
    const catalog::Variant &variant = rule.variants[v];
    std::string applies = "yes";
    if (known && !catalog::appliesTo(variant, running)) {
      applies = std::string("no: ") + (variant.since[0] ? std::string("from ") + variant.since : "") +
                (variant.since[0] && variant.until[0] ? ", " : "") +
                (variant.until[0] ? std::string("before ") + variant.until : "") +
                " (what this kernel does instead)";
    }
    std::string experiments, did;
    for (const std::string &key : split(variant.experiments)) {
      experiments += (experiments.empty() ? "" : ", ") + ("`" + key + "`");
      did += (did.empty() ? "" : "; ") + ("`" + key + "`: " + whatItDid(report, key));
    }
    out += "| `" + std::string(variant.id) + "` | " + cell(variant.message) + " | " + cell(applies) +
           " | " + experiments + " | " + cell(did) + " |\n";
  }
  out += kEnd;
  out += "\n";
  return out;
}

bool pageBlock(const std::string &text, std::string &block, std::size_t &begin, std::size_t &end) {
  begin = text.find(kBegin);
  if (begin == std::string::npos)
    return false;
  std::size_t close = text.find(kEnd, begin);
  if (close == std::string::npos)
    return false;
  end = close + std::string(kEnd).size();
  if (end < text.size() && text[end] == '\n')
    ++end;
  block = text.substr(begin, end - begin);
  return true;
}

std::string blockKernelSeries(const std::string &block) {
  const std::string marker = "observed on Linux ";
  std::size_t at = block.find(marker);
  if (at == std::string::npos)
    return "";
  std::size_t start = at + marker.size(), stop = block.find(' ', start);
  return block.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
}

bool writeMeasuredBlock(const std::string &path, const std::string &block, bool &changed,
                        std::string &error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot read";
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string page = text.str(), old;
  std::size_t begin = 0, end = 0;
  if (pageBlock(page, old, begin, end)) {
    page.replace(begin, end - begin, block);
  } else {
    // A page without the table yet: it goes before "## Suppression" (or at the end).
    std::size_t at = page.find("\n## Suppression");
    page.insert(at == std::string::npos ? page.size() : at + 1, block + "\n");
  }
  changed = page != text.str();
  if (!changed)
    return true;
  std::ofstream out(path, std::ios::trunc);
  out << page;
  if (!out) {
    error = path + ": cannot write";
    return false;
  }
  return true;
}

} // namespace afunix::kernel
