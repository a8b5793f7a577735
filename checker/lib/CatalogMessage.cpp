#include "CatalogMessage.h"

namespace clang::tidy::afunix {

std::string fillMessage(llvm::StringRef text, const std::map<std::string, std::string> &fill) {
  std::string out = text.str();
  for (const auto &[key, value] : fill) {
    std::string placeholder = "{" + key + "}";
    for (size_t at = out.find(placeholder); at != std::string::npos;
         at = out.find(placeholder, at + value.size()))
      out.replace(at, placeholder.size(), value);
  }
  std::string escaped;
  for (char c : out) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}

} // namespace clang::tidy::afunix
