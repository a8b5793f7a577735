#include "ServiceDiscovery.h"

#include "Filters.h"
#include "Paths.h"

#include "InputFiles.h"
#include "ServiceFiles.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <set>

namespace afunix::check {

namespace {

bool exists(const llvm::Twine &path) { return llvm::sys::fs::exists(path); }

// A directory whose files are no sources: version control, and build trees (their configured
// copies of *.socket.in would count twice).
bool skippedDirectory(const std::string &dir) {
  llvm::StringRef name = llvm::sys::path::filename(dir);
  if (name.starts_with(".") || name == "node_modules")
    return true;
  for (const char *marker : {"CMakeCache.txt", "meson-private", "meson-info", "config.status"})
    if (exists(dir + "/" + marker))
      return true;
  return false;
}

std::string commonDirectory(const std::vector<std::string> &files) {
  std::string common;
  for (const std::string &file : files) {
    llvm::SmallString<256> dir(file);
    // build/../src/x.c is src/x.c: unnormalized, meson's files would make build/ the common
    // directory, and a build tree is never searched.
    llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
    llvm::sys::path::remove_filename(dir);
    std::string d(dir);
    if (common.empty()) {
      common = d;
      continue;
    }
    while (!common.empty() && !(d == common || llvm::StringRef(d).starts_with(common + "/"))) {
      llvm::SmallString<256> up(common);
      llvm::sys::path::remove_filename(up);
      common = up == common ? "" : std::string(up);
    }
  }
  return common;
}

// Walks `root` for service files, at most `budget` entries.
void walk(const std::string &root, std::set<std::string> &found, std::size_t &budget, bool &cut) {
  std::error_code ec;
  llvm::sys::fs::recursive_directory_iterator it(root, ec, /*follow_symlinks=*/false), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (budget == 0) {
      cut = true;
      return;
    }
    --budget;
    const std::string &path = it->path();
    if (it->type() == llvm::sys::fs::file_type::directory_file) {
      if (skippedDirectory(path))
        it.no_push();
      continue;
    }
    if (analysis::isServiceFileName(path) && analysis::isRegularFile(path))
      found.insert(absolutePath(path));
  }
}

bool hasWildcard(llvm::StringRef text) { return text.find_first_of("*?[") != llvm::StringRef::npos; }

} // namespace

std::string sourceTreeOf(const std::vector<std::string> &names) {
  // Facts may name files relative to the working directory (--relative-paths).
  std::vector<std::string> files;
  for (const std::string &name : names)
    files.push_back(absolutePath(name));
  std::string common = commonDirectory(files);
  auto parentOf = [](const std::string &dir) {
    llvm::SmallString<256> up(dir);
    llvm::sys::path::remove_filename(up);
    return up == dir ? std::string() : std::string(up);
  };
  for (std::string dir = common; !dir.empty(); dir = parentOf(dir))
    for (const char *vcs : {".git", ".hg", ".svn"})
      if (exists(dir + "/" + vcs))
        return dir;
  // No work tree (a release tarball, a copy): the top of the build system's tree, the highest of
  // the directories holding a build file in one run up from (at most two levels above) the
  // files' own. Every file of systemd is under src/, which has none; its root has meson.build and
  // its units beside src/.
  auto builds = [](const std::string &dir) {
    for (const char *file : {"meson.build", "CMakeLists.txt", "configure.ac", "configure.in",
                             "Makefile.am", "MODULE.bazel", "WORKSPACE", "Android.bp"})
      if (exists(dir + "/" + file))
        return true;
    return false;
  };
  std::string first = common;
  for (int gap = 0; !first.empty() && !builds(first) && gap < 2; ++gap)
    first = parentOf(first);
  if (first.empty() || !builds(first))
    return common;
  std::string top = first;
  for (std::string up = parentOf(first); !up.empty() && builds(up); up = parentOf(up))
    top = up;
  return top;
}

std::vector<std::string> findServiceFiles(const ServiceFileSearch &search,
                                          std::vector<std::string> &warnings) {
  std::set<std::string> found;
  std::size_t budget = search.maxEntries;
  for (const std::string &root : search.roots) {
    bool cut = false;
    walk(root, found, budget, cut);
    if (cut)
      warnings.push_back("stopped looking for service files in " + root + " after " +
                         std::to_string(search.maxEntries) +
                         " entries; name them with --service-files=GLOB");
  }
  for (const std::string &glob : search.globs) {
    std::string pattern = absolutePath(glob, search.base);
    std::size_t matched = 0;
    if (!hasWildcard(pattern)) {
      if (!llvm::sys::fs::exists(pattern))
        warnings.push_back("--service-files=" + glob + ": no such file");
      else if (!analysis::isRegularFile(pattern))
        warnings.push_back("--service-files=" + glob + ": not a regular file; ignored");
      else if (!analysis::isServiceFileName(pattern))
        warnings.push_back("--service-files=" + glob +
                           ": not a service file (*.socket, *.socket.in, *.rc); ignored");
      else
        found.insert(pattern);
      continue;
    }
    // Walk from the directory before the first wildcard; match every file below it.
    llvm::StringRef fixed = llvm::StringRef(pattern).take_front(pattern.find_first_of("*?["));
    std::string start = fixed.substr(0, fixed.rfind('/')).str();
    if (start.empty())
      start = "/";
    std::error_code ec;
    std::size_t entries = search.maxEntries;
    for (llvm::sys::fs::recursive_directory_iterator it(start, ec, false), end;
         !ec && it != end && entries > 0; it.increment(ec), --entries)
      if (it->type() != llvm::sys::fs::file_type::directory_file && globMatch(pattern, it->path()) &&
          analysis::isServiceFileName(it->path())) {
        // A FIFO or a device under a service file's name is never opened.
        if (!analysis::isRegularFile(it->path())) {
          warnings.push_back("--service-files=" + glob + ": " + it->path() +
                             " is not a regular file; ignored");
          continue;
        }
        found.insert(absolutePath(it->path()));
        ++matched;
      }
    if (matched == 0)
      warnings.push_back("--service-files=" + glob + ": matches no service file");
  }
  return {found.begin(), found.end()};
}

} // namespace afunix::check
