// The YAML validator every catalog file (rules/*.yaml, models/*.yaml and the `models:` of a
// project's configuration) is read with: unknown fields are errors, every error has file:line:col.
#pragma once

#include "afunix/Catalog.h"
#include "afunix/KernelVersion.h"

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace afunix::rules {

class Validator {
public:
  Validator(std::string file, std::vector<CatalogError> &errors)
      : file_(std::move(file)), errors_(errors) {}

  void error(const YAML::Node &at, const std::string &field, const std::string &message) {
    CatalogError e;
    e.file = file_;
    if (at.IsDefined() && !at.Mark().is_null()) {
      e.line = at.Mark().line + 1;
      e.column = at.Mark().column + 1;
    }
    e.field = field;
    e.message = message;
    errors_.push_back(std::move(e));
    ++count_;
  }

  // Fields of a mapping must be known: a typo ("severty") is an error, not a silent default.
  bool expectMap(const YAML::Node &node, const std::string &field,
                 const std::set<std::string> &allowed) {
    if (!node.IsMap()) {
      error(node, field, "must be a mapping");
      return false;
    }
    for (const auto &kv : node) {
      std::string key = kv.first.Scalar();
      if (!allowed.count(key))
        error(kv.first, field.empty() ? key : field + "." + key, "unknown field");
    }
    return true;
  }

  std::string scalar(const YAML::Node &parent, const std::string &key, const std::string &field,
                     bool required) {
    YAML::Node node = parent[key];
    if (!node.IsDefined() || node.IsNull()) {
      if (required)
        error(parent, field, "is required");
      return {};
    }
    if (!node.IsScalar()) {
      error(node, field, "must be a string");
      return {};
    }
    std::string value = node.Scalar();
    if (required && value.empty())
      error(node, field, "must not be empty");
    return value;
  }

  std::string version(const YAML::Node &parent, const std::string &key, const std::string &field,
                      bool required) {
    std::string value = scalar(parent, key, field, required);
    KernelVersion parsed;
    if (!value.empty() && !KernelVersion::parse(value, parsed))
      error(parent[key], field, "'" + value + "' is not a kernel version (X.Y or X.Y.Z)");
    return value;
  }

  void oneOf(const YAML::Node &parent, const std::string &key, const std::string &field,
             const std::string &value, const std::set<std::string> &allowed) {
    if (value.empty() || allowed.count(value))
      return;
    std::string list;
    for (const auto &a : allowed)
      list += (list.empty() ? "" : ", ") + a;
    error(parent[key], field, "'" + value + "' is not one of: " + list);
  }

  int count() const { return count_; }

private:
  std::string file_;
  std::vector<CatalogError> &errors_;
  int count_ = 0;
};

} // namespace afunix::rules
