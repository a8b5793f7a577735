#include "Paths.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace afunix::check {

std::string absolutePath(const std::string &path, const std::string &base) {
  llvm::SmallString<256> result(path);
  if (!llvm::sys::path::is_absolute(result)) {
    llvm::SmallString<256> dir(base);
    if (dir.empty())
      llvm::sys::fs::current_path(dir);
    llvm::sys::path::append(dir, result);
    result = dir;
  }
  llvm::sys::path::remove_dots(result, /*remove_dot_dot=*/true);
  return std::string(result);
}

} // namespace afunix::check
