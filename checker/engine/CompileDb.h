// Where the compile commands come from (compile_commands.json, or fixed arguments after `--`),
// and how a command written for gcc or another clang becomes one this clang 19 accepts.
#pragma once

#include "Paths.h"

#include <string>
#include <utility>
#include <vector>

namespace afunix::check {

// One file to check and the command line that compiles it, already adjusted.
struct CompileJob {
  std::string file;      // absolute, normalised
  std::string directory; // the command's working directory
  std::vector<std::string> argv;
  // The program or library it is compiled into, from the command's output path ("foo" for
  // meson's foo.p/ and CMake's CMakeFiles/foo.dir/); "" when the path does not say.
  std::string target;
  // Other commands of the database for the same file that preprocess it differently (other -D,
  // -U, -I, -include or -std): each would make other code; only this first one is checked.
  unsigned otherConfigurations = 0;
};

struct CompileRequest {
  std::string buildPath;               // -p: a directory holding compile_commands.json, or the file
  std::vector<std::string> files;      // empty with -p: every file of the database
  std::vector<std::string> extraArgs;  // after `--`: the whole command without -p, appended with -p
  bool haveDashDash = false;
  // A directory (the facts cache's) where a note of the last database found valid is kept, so an
  // unchanged database is not checked again; "" for none.
  std::string checkedNoteDir;
  // With -p and no FILE: when set, a file the database lists that does not exist is left out
  // and named here (a partial run judges its files without it), instead of an input error.
  std::vector<std::string> *missing = nullptr;
  // When set, the notes for checkedNoteDir (name, bytes: what spares the next run checking and
  // reading an unchanged database) are handed here instead of written: a first run makes the
  // cache directory only later, and writes them then (writeDatabaseNotes()).
  std::vector<std::pair<std::string, std::string>> *notes = nullptr;
};

// Writes the notes collectJobs() handed out into `noteDir`, when it is a facts cache directory.
void writeDatabaseNotes(const std::string &noteDir,
                        const std::vector<std::pair<std::string, std::string>> &notes);

// Builds one job per file. On failure `error` says what is wrong with which input (missing file,
// unreadable or malformed database, file not in the database): the caller exits 2.
bool collectJobs(const CompileRequest &request, std::vector<CompileJob> &jobs, std::string &error);

// Makes a command line from a compile database fit for a syntax-only parse by clang 19: drops the
// compiler launcher, output and dependency-file options, plugins, -Werror, and every option clang's
// driver does not know (gcc-only flags such as -fanalyzer); sets the resource dir; silences
// warnings, which no rule reads. Exposed for tests.
std::vector<std::string> adjustCommand(std::vector<std::string> argv, const std::string &file);

// CompileJob::target for a command line (before adjustCommand) and the database's "output".
std::string outputTarget(const std::vector<std::string> &argv, const std::string &output);


} // namespace afunix::check
