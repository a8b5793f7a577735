// Paths as every tool prints and compares them. Needs nothing of clang, so the writers' library
// (which afunix-probe links too) can use it.
#pragma once

#include <string>

namespace afunix::check {

// Absolute, dot-free form of `path` (relative paths are taken from `base`, or the cwd when empty).
std::string absolutePath(const std::string &path, const std::string &base = "");

} // namespace afunix::check
