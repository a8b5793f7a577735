// A fresh directory for a test's files, removed with everything in it when the test program exits.
#pragma once

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace afunix::test_support {

inline std::string scratchDirectory(llvm::StringRef prefix) {
  static struct Made {
    pid_t owner = getpid();
    std::vector<std::string> dirs;
    ~Made() {
      if (getpid() != owner)
        return; // a forked child that exits normally must not take the parent's files
      // std::filesystem, not llvm::sys::fs::remove_directories(): that one refuses fifos and
      // sockets, which some tests leave behind.
      for (const std::string &dir : dirs) {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
      }
    }
  } made;
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory(prefix, dir))
    return ""; // callers check, or their writes and expectations fail
  made.dirs.push_back(std::string(dir));
  return std::string(dir);
}

} // namespace afunix::test_support
