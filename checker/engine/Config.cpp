#include "Config.h"

#include "CompileDb.h"
#include "DocsLocation.h"

#include "InputFiles.h"

#include "afunix/KernelVersion.h"
#include "afunix/Models.h"
#include "afunix/RuleCatalog.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace afunix::check {
namespace {

std::string where(const std::string &name, const YAML::Mark &mark) {
  if (mark.is_null())
    return name;
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string fieldError(const std::string &name, const YAML::Node &node, const std::string &field,
                       const std::string &what) {
  return where(name, node.Mark()) + ": field '" + field + "': " + what;
}

bool isIdentifier(const std::string &s) {
  if (s.empty())
    return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    // C++ qualified names (ns::fn) are allowed; the checks match them against qualified names.
    bool colon = c == ':' && i > 0;
    if (!alpha && !(digit && i > 0) && !colon)
      return false;
  }
  return s.back() != ':';
}

bool readScalar(const std::string &name, const YAML::Node &node, const std::string &field,
                std::string &out, std::string &error) {
  if (!node.IsScalar()) {
    error = fieldError(name, node, field, "expected a single value");
    return false;
  }
  out = node.Scalar();
  return true;
}

bool readNameList(const std::string &name, const YAML::Node &node, const std::string &field,
                  std::vector<std::string> &out, std::string &error) {
  if (node.IsNull())
    return true;
  if (!node.IsSequence()) {
    error = fieldError(name, node, field, "expected a list of function names");
    return false;
  }
  for (const YAML::Node &item : node) {
    std::string value;
    if (!readScalar(name, item, field, value, error))
      return false;
    if (!isIdentifier(value)) {
      error = fieldError(name, item, field, "'" + value + "' is not a function name");
      return false;
    }
    out.push_back(value);
  }
  return true;
}

bool knownRule(const std::string &name, const YAML::Node &node, const std::string &field,
               const std::string &id, std::string &error) {
  if (afunix::catalog::findRule(id))
    return true;
  error = fieldError(name, node, field, "unknown rule id '" + id + "' (see afunix-check --list-rules)");
  return false;
}

// yaml-cpp keeps every entry of a mapping, repeated keys included; YAML forbids them, and the
// second would silently win (or lose).
bool noDuplicateKeys(const std::string &name, const YAML::Node &map, const std::string &field,
                     std::string &error) {
  std::map<std::string, YAML::Mark> seen;
  for (const auto &entry : map) {
    if (!entry.first.IsScalar())
      continue;
    auto [it, inserted] = seen.emplace(entry.first.Scalar(), entry.first.Mark());
    if (!inserted) {
      std::string key = entry.first.Scalar();
      error = fieldError(name, entry.first, field.empty() ? key : field + "." + key,
                         "duplicate key (first at line " + std::to_string(it->second.line + 1) +
                             ")");
      return false;
    }
  }
  return true;
}

bool parseDocument(const YAML::Node &root, const std::string &name, Config &out,
                   std::string &error) {
  if (root.IsNull())
    return true; // an empty file configures nothing
  if (!root.IsMap()) {
    error = where(name, root.Mark()) + ": expected a mapping of settings at the top level";
    return false;
  }
  if (!noDuplicateKeys(name, root, "", error))
    return false;
  for (const auto &entry : root) {
    const YAML::Node &keyNode = entry.first;
    const YAML::Node &value = entry.second;
    std::string key = keyNode.IsScalar() ? keyNode.Scalar() : std::string();
    if (key == "wrappers") {
      if (!readNameList(name, value, key, out.wrappers, error))
        return false;
    } else if (key == "socket_producers") {
      if (!readNameList(name, value, key, out.socketProducers, error))
        return false;
    } else if (key == "external_sockets") {
      if (!readNameList(name, value, key, out.externalSockets, error))
        return false;
    } else if (key == "models") {
      // The model catalog's own schema and parser (models/*.yaml, docs/models.md).
      std::vector<rules::CatalogError> errors;
      if (!rules::parseModels(value, name, out.models, errors)) {
        rules::CatalogError first = errors.front();
        first.field = first.field.empty() ? "models" : "models." + first.field;
        error = first.str();
        return false;
      }
    } else if (key == "severity") {
      if (value.IsNull())
        continue;
      if (!value.IsMap()) {
        error = fieldError(name, value, key, "expected a mapping rule-id: error|warning|note");
        return false;
      }
      if (!noDuplicateKeys(name, value, key, error))
        return false;
      for (const auto &item : value) {
        std::string id, level;
        if (!readScalar(name, item.first, key, id, error) ||
            !knownRule(name, item.first, key, id, error) ||
            !readScalar(name, item.second, key + "." + id, level, error))
          return false;
        if (level != "error" && level != "warning" && level != "note") {
          error = fieldError(name, item.second, key + "." + id,
                             "'" + level + "' is not one of error, warning, note");
          return false;
        }
        out.severity[id] = level;
      }
    } else if (key == "disable") {
      if (value.IsNull())
        continue;
      if (!value.IsSequence()) {
        error = fieldError(name, value, key, "expected a list of rule ids");
        return false;
      }
      for (const YAML::Node &item : value) {
        std::string id;
        if (!readScalar(name, item, key, id, error) || !knownRule(name, item, key, id, error))
          return false;
        out.disable.push_back(id);
      }
    } else if (key == "pedantic") {
      std::string text;
      if (!readScalar(name, value, key, text, error))
        return false;
      if (text == "true" || text == "yes" || text == "on")
        out.pedantic = true;
      else if (text == "false" || text == "no" || text == "off")
        out.pedantic = false;
      else {
        error = fieldError(name, value, key, "'" + text + "' is not true or false");
        return false;
      }
    } else if (key == "target_kernel") {
      std::string text;
      if (!readScalar(name, value, key, text, error))
        return false;
      if (!validKernelVersion(text)) {
        error = fieldError(name, value, key, "'" + text + "' is not a kernel version like \"6.16\"");
        return false;
      }
      out.targetKernel = text;
    } else if (key == "docs_url") {
      std::string text;
      if (!readScalar(name, value, key, text, error))
        return false;
      std::string why;
      if (!validDocsUrl(text, why)) {
        error = fieldError(name, value, key, why);
        return false;
      }
      out.docsUrl = text;
    } else {
      error = fieldError(name, keyNode, key.empty() ? "?" : key,
                         "unknown setting (known: wrappers, socket_producers, external_sockets, "
                         "models, severity, disable, pedantic, target_kernel, docs_url)");
      return false;
    }
  }
  return true;
}

} // namespace

bool validKernelVersion(const std::string &text) {
  afunix::KernelVersion version;
  // Two or three numeric parts and nothing else: a uname suffix is no target.
  std::size_t dots = 0;
  for (char c : text) {
    if (c == '.')
      ++dots;
    else if (c < '0' || c > '9')
      return false;
  }
  return (dots == 1 || dots == 2) && afunix::KernelVersion::parse(text, version) &&
         version.major >= 2 && version.major < 100;
}

bool parseConfig(const std::string &text, const std::string &name, Config &out,
                 std::string &error) {
  // yaml-cpp reports problems by throwing; nothing may unwind past this function.
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(text);
    if (documents.size() > 1) {
      error = where(name, documents[1].Mark()) +
              ": a second YAML document (after '---'); a configuration is one document";
      return false;
    }
    Config parsed;
    if (!parseDocument(documents.empty() ? YAML::Node() : documents[0], name, parsed, error))
      return false;
    out = std::move(parsed);
    return true;
  } catch (const YAML::Exception &e) {
    error = where(name, e.mark) + ": invalid YAML: " + e.msg;
    return false;
  } catch (const std::exception &e) {
    error = name + ": " + e.what();
    return false;
  }
}

bool loadConfig(const std::string &path, Config &out, std::string &error) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    error = path + ": cannot read the config file";
    return false;
  }
  std::string text;
  if (!analysis::readInputFile(path, analysis::kMaxConfigBytes, text, error))
    return false;
  if (!parseConfig(text, path, out, error))
    return false;
  out.path = path;
  return true;
}

bool ConfigFinder::init(const std::string &explicitPath, std::string &error) {
  if (explicitPath.empty())
    return true;
  explicit_ = true;
  std::string file = absolutePath(explicitPath);
  if (!load(file, error))
    return false;
  defaults_ = *byFile_.at(file);
  defaults_.path = explicitPath;
  return true;
}

const Config *ConfigFinder::load(const std::string &file, std::string &error) {
  if (auto it = byFile_.find(file); it != byFile_.end())
    return it->second.get();
  if (auto it = errors_.find(file); it != errors_.end()) {
    error = it->second;
    return nullptr;
  }
  auto config = std::make_unique<Config>();
  order_.push_back(file);
  if (!loadConfig(file, *config, error)) {
    errors_[file] = error;
    return nullptr;
  }
  return byFile_.emplace(file, std::move(config)).first->second.get();
}

std::string ConfigFinder::nearest(const std::string &directory) {
  if (auto it = nearestByDirectory_.find(directory); it != nearestByDirectory_.end())
    return it->second;
  std::string found;
  std::string candidate = directory + (directory == "/" ? "" : "/") + kConfigFileName;
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(candidate, ec)))
    found = candidate;
  else if (directory != "/" && !directory.empty())
    found = nearest(std::filesystem::path(directory).parent_path().string());
  nearestByDirectory_[directory] = found;
  return found;
}

const Config *ConfigFinder::configFor(const std::string &path, std::string &error,
                                      bool isDirectory) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (explicit_)
    return &defaults_;
  std::string absolute = absolutePath(path);
  std::string directory =
      isDirectory ? absolute : std::filesystem::path(absolute).parent_path().string();
  std::string file = nearest(directory.empty() ? "/" : directory);
  if (file.empty())
    return &defaults_;
  return load(file, error);
}

std::vector<std::string> ConfigFinder::filesRead() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return order_;
}

} // namespace afunix::check
