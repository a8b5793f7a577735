#include "afunix/Catalog.h"

#include "afunix/KernelVersion.h"
#include "afunix/kernel/ExperimentRegistry.h"

#include "Validator.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace afunix::rules {

std::string CatalogError::str() const {
  std::ostringstream out;
  out << file;
  if (line > 0) {
    out << ':' << line;
    if (column > 0)
      out << ':' << column;
  }
  out << ": ";
  if (!field.empty())
    out << "field '" << field << "': ";
  out << message;
  return out.str();
}

std::vector<std::string> placeholders(const std::string &message) {
  std::vector<std::string> names;
  static const std::regex pattern(R"(\{([a-z_]+)\})");
  for (auto it = std::sregex_iterator(message.begin(), message.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1].str();
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  return names;
}

namespace {

std::string baseName(const std::string &path) {
  auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// A variant's `experiment`: one key or a list of keys, each an experiment `afunix-probe kernel`
// runs. A message may state a consequence only where an experiment shows it on a real kernel.
std::vector<std::string> experimentKeys(const YAML::Node &variant, const std::string &field,
                                        Validator &v) {
  std::vector<std::string> keys;
  YAML::Node node = variant["experiment"];
  if (!node.IsDefined() || node.IsNull()) {
    v.error(variant, field,
            "is required: the afunix-probe kernel experiment that shows what the message claims");
    return keys;
  }
  std::vector<YAML::Node> items;
  if (node.IsScalar())
    items.push_back(node);
  else if (node.IsSequence() && node.size() > 0)
    for (const auto &item : node)
      items.push_back(item);
  else {
    v.error(node, field, "must be an experiment name or a non-empty list of them");
    return keys;
  }
  for (const auto &item : items) {
    if (!item.IsScalar()) {
      v.error(item, field, "must be an experiment name");
      continue;
    }
    const std::string &key = item.Scalar();
    if (!kernel::findExperimentKey(key)) {
      std::string known;
      for (const auto &k : kernel::kExperimentKeys)
        known += std::string(known.empty() ? "" : ", ") + k.name;
      v.error(item, field, "'" + key + "' is not an afunix-probe kernel experiment (" + known + ")");
      continue;
    }
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      v.error(item, field, "'" + key + "' is listed twice");
    else
      keys.push_back(key);
  }
  return keys;
}

void parseRuleNode(const YAML::Node &root, const std::string &fileName, Rule &rule,
                   Validator &v) {
  if (!v.expectMap(root, "",
                   {"id", "title", "severity", "category", "kernel", "variants", "what_breaks",
                    "fix", "detectors", "doc", "security_severity"}))
    return;
  rule.id = v.scalar(root, "id", "id", true);
  static const std::regex idPattern("^afunix-[a-z0-9]+(-[a-z0-9]+)*$");
  if (!rule.id.empty() && !std::regex_match(rule.id, idPattern))
    v.error(root["id"], "id", "'" + rule.id + "' must look like afunix-word-word");
  if (!rule.id.empty() && baseName(fileName) != rule.id)
    v.error(root["id"], "id",
            "'" + rule.id + "' does not match the file name '" + baseName(fileName) + "'");
  rule.title = v.scalar(root, "title", "title", true);
  rule.severity = v.scalar(root, "severity", "severity", true);
  v.oneOf(root, "severity", "severity", rule.severity, {"error", "warning", "note"});
  rule.category = v.scalar(root, "category", "category", true);
  v.oneOf(root, "category", "category", rule.category,
          {"credentials", "fd-passing", "memory-init"});
  rule.whatBreaks = v.scalar(root, "what_breaks", "what_breaks", true);
  // GitHub's CVSS-like scale: only for rules whose finding means a security check can be
  // bypassed (it fails open); code scanning then ranks the alert as a security issue.
  rule.securitySeverity = v.scalar(root, "security_severity", "security_severity", false);
  if (!rule.securitySeverity.empty()) {
    static const std::regex scorePattern("^(10(\\.0)?|[0-9](\\.[0-9])?)$");
    if (!std::regex_match(rule.securitySeverity, scorePattern))
      v.error(root["security_severity"], "security_severity",
              "'" + rule.securitySeverity + "' must be a score from 0.0 to 10.0 with one decimal");
  }
  rule.fix = v.scalar(root, "fix", "fix", true);
  rule.doc = v.scalar(root, "doc", "doc", true);
  if (!rule.id.empty() && !rule.doc.empty() && rule.doc != "docs/rules/" + rule.id + ".md")
    v.error(root["doc"], "doc", "must be docs/rules/" + rule.id + ".md");

  YAML::Node kernel = root["kernel"];
  if (!kernel.IsDefined()) {
    v.error(root, "kernel", "is required");
  } else if (v.expectMap(kernel, "kernel",
                         {"change", "commit", "first_version", "affects_from", "later"})) {
    rule.change = v.scalar(kernel, "change", "kernel.change", true);
    rule.commit = v.scalar(kernel, "commit", "kernel.commit", true);
    static const std::regex commitPattern("^[0-9a-f]{12,40}$");
    if (!rule.commit.empty() && !std::regex_match(rule.commit, commitPattern))
      v.error(kernel["commit"], "kernel.commit", "must be 12 to 40 lowercase hex digits");
    rule.firstVersion = v.version(kernel, "first_version", "kernel.first_version", true);
    rule.affectsFrom = v.version(kernel, "affects_from", "kernel.affects_from", true);
    YAML::Node later = kernel["later"];
    if (later.IsDefined() && !later.IsNull()) {
      if (!later.IsSequence()) {
        v.error(later, "kernel.later", "must be a list");
      } else {
        for (std::size_t i = 0; i < later.size(); ++i) {
          std::string field = "kernel.later[" + std::to_string(i) + "]";
          if (!v.expectMap(later[i], field, {"version", "commit", "change"}))
            continue;
          LaterChange change;
          change.version = v.version(later[i], "version", field + ".version", true);
          change.commit = v.scalar(later[i], "commit", field + ".commit", false);
          change.change = v.scalar(later[i], "change", field + ".change", true);
          rule.later.push_back(std::move(change));
        }
      }
    }
  }

  YAML::Node variants = root["variants"];
  if (!variants.IsDefined()) {
    v.error(root, "variants", "is required");
  } else if (!variants.IsSequence() || variants.size() == 0) {
    v.error(variants, "variants", "must be a non-empty list");
  } else {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      std::string field = "variants[" + std::to_string(i) + "]";
      if (!v.expectMap(variants[i], field,
                       {"id", "since", "until", "message", "severity", "experiment"}))
        continue;
      Variant variant;
      variant.id = v.scalar(variants[i], "id", field + ".id", true);
      if (!variant.id.empty() && !seen.insert(variant.id).second)
        v.error(variants[i]["id"], field + ".id", "duplicate variant id '" + variant.id + "'");
      variant.since = v.version(variants[i], "since", field + ".since", false);
      variant.until = v.version(variants[i], "until", field + ".until", false);
      KernelVersion a, b;
      if (!variant.since.empty() && !variant.until.empty() &&
          KernelVersion::parse(variant.since, a) && KernelVersion::parse(variant.until, b) &&
          !(a < b))
        v.error(variants[i]["until"], field + ".until", "must be later than since");
      variant.message = v.scalar(variants[i], "message", field + ".message", true);
      // A variant may weigh more or less than the rule's default (a check that fails open).
      variant.severity = v.scalar(variants[i], "severity", field + ".severity", false);
      if (!variant.severity.empty())
        v.oneOf(variants[i], "severity", field + ".severity", variant.severity,
                {"error", "warning", "note"});
      variant.experiments = experimentKeys(variants[i], field + ".experiment", v);
      int depth = 0;
      for (char c : variant.message) {
        depth += c == '{' ? 1 : c == '}' ? -1 : 0;
        if (depth < 0 || depth > 1)
          break;
      }
      if (depth != 0)
        v.error(variants[i]["message"], field + ".message", "unbalanced '{' '}' placeholder");
      rule.variants.push_back(std::move(variant));
    }
  }

  YAML::Node detectors = root["detectors"];
  if (!detectors.IsDefined()) {
    v.error(root, "detectors", "is required");
  } else if (v.expectMap(detectors, "detectors", {"static", "runtime"})) {
    rule.staticDetector = v.scalar(detectors, "static", "detectors.static", false);
    rule.runtimeDetector = v.scalar(detectors, "runtime", "detectors.runtime", false);
    if (rule.staticDetector.empty() && rule.runtimeDetector.empty())
      v.error(detectors, "detectors", "needs a static or a runtime detector");
  }
}

} // namespace

bool parseRule(const std::string &yamlText, const std::string &fileName, Rule &out,
               std::vector<CatalogError> &errors) {
  Validator v(fileName, errors);
  out = Rule{};
  out.sourceFile = fileName;
  try {
    YAML::Node root = YAML::Load(yamlText);
    if (!root.IsDefined() || root.IsNull()) {
      v.error(root, "", "the file holds no rule");
      return false;
    }
    parseRuleNode(root, fileName, out, v);
  } catch (const YAML::Exception &e) {
    CatalogError err;
    err.file = fileName;
    if (!e.mark.is_null()) {
      err.line = e.mark.line + 1;
      err.column = e.mark.column + 1;
    }
    err.message = "invalid YAML: " + e.msg;
    errors.push_back(std::move(err));
    return false;
  }
  return v.count() == 0;
}

bool loadRuleFile(const std::string &path, Rule &out, std::vector<CatalogError> &errors) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    errors.push_back({path, 0, 0, "", "cannot open the file"});
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  return parseRule(text.str(), path, out, errors);
}

bool loadCatalogDir(const std::string &dir, std::vector<Rule> &out,
                    std::vector<CatalogError> &errors) {
  DIR *d = opendir(dir.c_str());
  if (!d) {
    errors.push_back({dir, 0, 0, "", "cannot open the rules directory"});
    return false;
  }
  std::vector<std::string> files;
  while (dirent *entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0)
      files.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    errors.push_back({dir, 0, 0, "", "no *.yaml rule files"});
    return false;
  }
  bool ok = true;
  std::map<std::string, std::string> ids;
  for (const auto &file : files) {
    Rule rule;
    if (!loadRuleFile(file, rule, errors)) {
      ok = false;
      continue;
    }
    auto [it, inserted] = ids.emplace(rule.id, file);
    if (!inserted) {
      errors.push_back({file, 0, 0, "id", "duplicate rule id, also in " + it->second});
      ok = false;
      continue;
    }
    out.push_back(std::move(rule));
  }
  std::sort(out.begin(), out.end(), [](const Rule &a, const Rule &b) { return a.id < b.id; });
  return ok;
}

} // namespace afunix::rules
