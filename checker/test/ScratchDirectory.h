// A fresh directory for a test's files, removed with everything in it when the test program exits
// (ctest runs each test in a process of its own, so a test's directories go when it ends).
#pragma once

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <filesystem>
#include <string>
#include <vector>

namespace afunix::test_support {

inline std::string scratchDirectory(llvm::StringRef prefix) {
  static struct Made {
    std::vector<std::string> dirs;
    // std::filesystem, not llvm::sys::fs::remove_directories(): that one refuses fifos and
    // sockets, which some tests leave behind.
    ~Made() {
      for (const std::string &dir : dirs) {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
      }
    }
  } made;
  llvm::SmallString<128> dir;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory(prefix, dir))
    return ""; // callers' writes then fail, and so do their expectations
  made.dirs.push_back(std::string(dir));
  return std::string(dir);
}

} // namespace afunix::test_support
