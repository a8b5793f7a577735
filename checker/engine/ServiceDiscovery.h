// Where the whole-program run finds service files (systemd socket units, Android init .rc files;
// analysis/ServiceFiles.h reads them): in the project's source tree, and wherever
// --service-files=GLOB points.
#pragma once

#include "CompileDb.h"

#include <string>
#include <vector>

namespace afunix::check {

// The source tree of a compile database's files: the version-control work tree (.git, .hg, .svn)
// around the directory they share, else that directory itself. "" when there are no jobs.
std::string sourceTreeOf(const std::vector<std::string> &files);

struct ServiceFileSearch {
  std::vector<std::string> roots; // searched recursively (version-control and build directories skipped)
  std::vector<std::string> globs; // --service-files: relative to `base`, or absolute
  std::string base;
  std::size_t maxEntries = 200000; // a search stops (with a warning) after this many entries
};

// Every service file found, absolute and sorted, each once. `warnings` gets a glob that matched
// nothing, a file named by a glob that is no service file, and a search that was cut short.
std::vector<std::string> findServiceFiles(const ServiceFileSearch &search,
                                          std::vector<std::string> &warnings);

} // namespace afunix::check
