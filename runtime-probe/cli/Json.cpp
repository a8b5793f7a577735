#include "Json.h"

#include <yaml-cpp/yaml.h>

#include <cctype>

namespace afunix::probe {

namespace {
// A plain scalar is written bare only if it is a JSON literal; anything else (YAML's other plain
// scalars, in a file that is YAML rather than JSON) is quoted, so the output stays JSON.
bool jsonLiteral(const std::string &s) {
  if (s == "true" || s == "false" || s == "null")
    return true;
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-')
    ++i;
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])) || (s[i] == '0' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))))
    return false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
      return false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
      ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
      return false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
      ++i;
  }
  return i == s.size();
}
} // namespace

void toJson(const YAML::Node &node, std::string &out) {
  switch (node.Type()) {
  case YAML::NodeType::Map: {
    out += '{';
    bool first = true;
    for (const auto &kv : node) {
      if (!first)
        out += ',';
      first = false;
      out += jsonString(kv.first.as<std::string>()) + ':';
      toJson(kv.second, out);
    }
    out += '}';
    break;
  }
  case YAML::NodeType::Sequence: {
    out += '[';
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (i)
        out += ',';
      toJson(node[i], out);
    }
    out += ']';
    break;
  }
  case YAML::NodeType::Scalar:
    out += node.Tag() != "!" && jsonLiteral(node.Scalar()) ? node.Scalar() : jsonString(node.Scalar());
    break;
  default:
    out += "null";
  }
}

} // namespace afunix::probe
