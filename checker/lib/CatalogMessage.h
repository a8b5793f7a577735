// Catalog message text turned into a clang diagnostic format string; shared by every check.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>

namespace clang::tidy::afunix {

// `text` with each {placeholder} replaced from `fill`, and '%' escaped for clang's formatter.
std::string fillMessage(llvm::StringRef text, const std::map<std::string, std::string> &fill);

} // namespace clang::tidy::afunix
