#include "CompileDb.h"

#include <algorithm>

#include "FactsCache.h"
#include "SafeFiles.h"

#include "FactsBinary.h"
#include "InputFiles.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticDriver.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"

#include "clang/Driver/Options.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <map>
#include <mutex>
#include <set>

namespace afunix::check {

using clang::tooling::CommandLineArguments;

namespace {

bool isLauncher(llvm::StringRef argv0) {
  llvm::StringRef name = llvm::sys::path::filename(argv0);
  return name == "ccache" || name == "sccache" || name == "distcc" || name == "icecc";
}

bool isClangCl(llvm::StringRef argv0) {
  llvm::StringRef name = llvm::sys::path::stem(llvm::sys::path::filename(argv0));
  return name.equals_insensitive("cl") || name.ends_with_insensitive("clang-cl");
}

// Keeps only the arguments clang's driver knows, as the driver itself would classify them: an
// unknown option (gcc's -fanalyzer, -fno-tree-loop-distribute-patterns is known and ignored) or
// one marked unsupported would make the driver fail before any parsing.
CommandLineArguments dropUnknownOptions(const CommandLineArguments &args) {
  if (args.size() < 2 || isClangCl(args[0]))
    return args;
  std::vector<const char *> raw;
  for (std::size_t i = 1; i < args.size(); ++i)
    raw.push_back(args[i].c_str());
  llvm::opt::InputArgList list(raw.data(), raw.data() + raw.size());
  const llvm::opt::OptTable &table = clang::driver::getDriverOptTable();
  CommandLineArguments kept{args[0]};
  unsigned index = 0;
  while (index < raw.size()) {
    unsigned start = index;
    std::unique_ptr<llvm::opt::Arg> arg =
        table.ParseOneArg(list, index, llvm::opt::Visibility(clang::driver::options::ClangOption));
    if (!arg) { // an option missing its value at the end: leave it to the driver
      for (unsigned i = start; i < raw.size(); ++i)
        kept.push_back(raw[i]);
      break;
    }
    if (index <= start) // never loop: ParseOneArg consumed nothing
      index = start + 1;
    const llvm::opt::Option &option = arg->getOption();
    // -resource-dir in either spelling (-resource-dir=DIR, -resource-dir DIR): ours is set later.
    bool drop = option.getID() == clang::driver::options::OPT_UNKNOWN ||
                option.hasFlag(clang::driver::options::Unsupported) ||
                option.matches(clang::driver::options::OPT_resource_dir);
    if (!drop)
      for (unsigned i = start; i < index; ++i)
        kept.push_back(raw[i]);
  }
  return kept;
}

CommandLineArguments dropWarningOptions(const CommandLineArguments &args) {
  CommandLineArguments kept;
  for (std::size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef a = args[i];
    // -Werror would turn warnings this tool does not show into parse failures.
    // -c is harmless next to -fsyntax-only, but gone is clearer in what the tool runs.
    if (i > 0 && (a == "-c" || a == "-Werror" || a.starts_with("-Werror=") || a == "-pedantic-errors"))
      continue;
    kept.push_back(args[i]);
  }
  return kept;
}

// Collects what clang's driver says about a command line without printing it.
class DriverComplaints : public clang::DiagnosticConsumer {
public:
  struct Complaint {
    unsigned id;
    std::string option, value;
  };
  std::vector<Complaint> complaints;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error)
      return;
    auto text = [&](unsigned i) -> std::string {
      if (i >= info.getNumArgs())
        return "";
      if (info.getArgKind(i) == clang::DiagnosticsEngine::ak_std_string)
        return info.getArgStdStr(i);
      if (info.getArgKind(i) == clang::DiagnosticsEngine::ak_c_string)
        return info.getArgCStr(i);
      return "";
    };
    complaints.push_back({info.getID(), text(0), text(1)});
  }
};

// Options clang knows but refuses for this target or in this form, as gcc databases carry them
// (-mrecord-mcount, -mabi=ms, -fsanitize=bounds-strict, -traditional): the driver itself is asked,
// once per command, so no list of gcc flags is kept here. Each refused option (or refused value of
// a comma-separated list) is removed; parsing never depended on them.
CommandLineArguments dropRefusedOptions(CommandLineArguments args) {
  namespace diag = clang::diag;
  if (args.size() < 2 || isClangCl(args[0]))
    return args;
  for (int round = 0; round < 8; ++round) {
    DriverComplaints collector;
    auto diagOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::DiagnosticsEngine diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), &*diagOptions,
                                   &collector, /*ShouldOwnClient=*/false);
    clang::driver::Driver driver(args[0], llvm::sys::getDefaultTargetTriple(), diags,
                                 "afunix-check", llvm::vfs::getRealFileSystem());
    driver.setCheckInputsExist(false);
    std::vector<const char *> raw;
    for (const std::string &a : args)
      raw.push_back(a.c_str());
    std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(raw));
    bool changed = false;
    for (const DriverComplaints::Complaint &c : collector.complaints) {
      if (c.option.empty() || c.option[0] != '-')
        continue;
      llvm::StringRef option = c.option;
      bool wholeOption = c.id == diag::err_drv_unsupported_opt_for_target ||
                         c.id == diag::err_drv_clang_unsupported ||
                         c.id == diag::err_drv_unsupported_opt ||
                         c.id == diag::err_drv_unsupported_opt_with_suggestion;
      bool oneValue = c.id == diag::err_drv_unsupported_option_argument ||
                      c.id == diag::err_drv_unsupported_option_argument_for_target;
      if (!wholeOption && !oneValue)
        continue;
      for (std::size_t i = 1; i < args.size(); ++i) {
        llvm::StringRef a = args[i];
        bool joined = option.ends_with("=") ? a.starts_with(option) : a == option;
        if (!joined)
          continue;
        if (wholeOption) {
          args.erase(args.begin() + i--);
          changed = true;
          continue;
        }
        // -fsanitize=address,bounds-strict: drop only the refused value.
        llvm::SmallVector<llvm::StringRef, 4> values;
        a.drop_front(option.size()).split(values, ',');
        std::string kept;
        for (llvm::StringRef v : values)
          if (v != c.value)
            kept += (kept.empty() ? "" : ",") + v.str();
        if (kept.size() + option.size() == a.size())
          continue;
        changed = true;
        if (kept.empty())
          args.erase(args.begin() + i--);
        else
          args[i] = option.str() + kept;
      }
    }
    if (!changed)
      break;
  }
  return args;
}

// Adjusting runs clang's driver (dropRefusedOptions), which probes the system (GCC
// installations, the distribution): most of what reading a database of small files costs, and all
// of it again for every file. No step depends on the input's name, only on the options and the
// input's language, so a command is adjusted once with the input standing in as a placeholder of
// the same extension, and the result reused for every file with the same command.
std::vector<std::string> adjustOnce(const std::vector<std::string> &argv, llvm::StringRef file,
                                    std::vector<std::string> (*adjust)(std::vector<std::string>,
                                                                       const std::string &)) {
  std::string placeholder = "\1afunix-input" + llvm::sys::path::extension(file).str();
  // The input as the command spells it: the file itself, or a relative path it ends with.
  auto isInput = [&](llvm::StringRef a) {
    return a == file || (!a.empty() && a[0] != '-' && !llvm::sys::path::is_absolute(a) &&
                         file.ends_with(a) && file.drop_back(a.size()).ends_with("/"));
  };
  std::vector<std::string> key = argv;
  std::string spelled;
  for (std::string &a : key)
    if (isInput(a)) {
      spelled = a;
      a = placeholder;
    }
  if (spelled.empty())
    return adjust(argv, file.str());
  static std::mutex lock;
  static std::map<std::vector<std::string>, std::vector<std::string>> memo;
  std::vector<std::string> result;
  {
    std::lock_guard<std::mutex> guard(lock);
    auto it = memo.find(key);
    if (it != memo.end())
      result = it->second;
  }
  if (result.empty()) {
    result = adjust(key, placeholder);
    std::lock_guard<std::mutex> guard(lock);
    memo.emplace(key, result);
  }
  for (std::string &a : result)
    if (a == placeholder)
      a = spelled;
  return result;
}

// The steps that cost: clang's option table and driver.
std::vector<std::string> adjustOptions(std::vector<std::string> argv, const std::string &) {
  argv = dropUnknownOptions(argv);
  argv = dropWarningOptions(argv);
  argv = dropRefusedOptions(argv);
  // -resource-dir right after the compiler: stddef.h and friends from the clang we link.
  argv.insert(argv.begin() + 1, "-resource-dir=" AFUNIX_CLANG_RESOURCE_DIR);
  // Before the `--` that may separate the input files, or at the end.
  auto end = std::find(argv.begin(), argv.end(), "--");
  argv.insert(end, {"-Wno-unknown-warning-option", "-w", "-fno-caret-diagnostics"});
  return argv;
}

} // namespace

std::string outputTarget(const std::vector<std::string> &argv, const std::string &output) {
  std::string path = output;
  for (std::size_t i = 0; path.empty() && i < argv.size(); ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-o" && i + 1 < argv.size())
      path = argv[i + 1];
    else if (arg.starts_with("-o") && arg.size() > 2)
      path = arg.drop_front(2).str();
  }
  // The innermost directory that names a target: meson's "foo.p", CMake's "foo.dir".
  llvm::SmallVector<llvm::StringRef, 8> parts;
  llvm::StringRef(path).split(parts, '/', -1, false);
  for (int i = static_cast<int>(parts.size()) - 2; i >= 0; --i) { // the last part is the object
    llvm::StringRef part = parts[i];
    if (part.ends_with(".p") && part.size() > 2)
      return part.drop_back(2).str();
    if (part.ends_with(".dir") && part.size() > 4)
      return part.drop_back(4).str();
  }
  return "";
}

std::vector<std::string> adjustCommand(std::vector<std::string> argv, const std::string &file) {
  using namespace clang::tooling;
  while (argv.size() > 1 && isLauncher(argv[0]))
    argv.erase(argv.begin());
  if (argv.empty())
    argv.push_back("clang");
  // Output and dependency files differ from file to file; without them, files compiled alike
  // have one command but for the input.
  for (const ArgumentsAdjuster &adjust :
       {getClangStripOutputAdjuster(), getClangSyntaxOnlyAdjuster(),
        getClangStripDependencyFileAdjuster(), getStripPluginsAdjuster()})
    argv = adjust(argv, file);
  return adjustOnce(argv, file, adjustOptions);
}

namespace {

bool isCOrCxxSource(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  for (const char *known : {".c", ".cc", ".cpp", ".cxx", ".c++", ".cp", ".C", ".h", ".hh",
                            ".hpp", ".hxx", ".i", ".ii"})
    if (ext == known)
      return true;
  return false;
}

bool fileExists(const std::string &path) {
  return llvm::sys::fs::is_regular_file(path);
}

// The note of the last database found valid (validateDatabase()).
constexpr char kCheckedNoteName[] = "database-checked";

std::string databasePath(const std::string &buildPath) {
  if (llvm::sys::fs::is_directory(buildPath)) {
    llvm::SmallString<256> json(buildPath);
    llvm::sys::path::append(json, "compile_commands.json");
    return std::string(json);
  }
  return buildPath;
}

// A note for the facts cache's directory: written now when it is already a cache, or handed to
// the caller (CompileRequest::notes) to write once the run has made it one.
void saveNote(const CompileRequest &request, const std::string &name, std::string bytes) {
  if (request.notes) {
    request.notes->emplace_back(name, std::move(bytes));
    return;
  }
  writeDatabaseNotes(request.checkedNoteDir, {{name, std::move(bytes)}});
}

// The checks JSONCompilationDatabase makes, done first so that the message names the entry and
// the field, and so that its YAML parser never prints to stderr. A relative "directory" (the
// JSON Compilation Database format wants it absolute; some generators write it relative) is
// taken relative to the database's own directory, as clangd does: `text` gets the database with
// every directory made absolute.
//
// Checking parses the whole database (about 5% of a warm run over a database of a thousand
// files); clang's reader parses it again. A database found valid and left as it is gets a note in
// `noteDir` (the facts cache): a digest of this afunix-check, the database's path and its bytes.
// A run that finds the note equal to its own digest of them skips the check: the same checks of
// the same bytes pass again. A note that is missing, damaged or of other bytes only costs the check.
bool validateDatabase(const std::string &jsonPath, const CompileRequest &request, std::string &text,
                      std::string &error) {
  const std::string &noteDir = request.checkedNoteDir;
  std::string why;
  if (!analysis::readInputFile(jsonPath, analysis::kMaxJsonInputBytes, text, why)) {
    error = "cannot read the compile database " + why;
    return false;
  }
  std::string note, digest;
  if (!noteDir.empty()) {
    llvm::SmallString<256> path(noteDir);
    llvm::sys::path::append(path, kCheckedNoteName);
    note = std::string(path);
    digest = fileDigest(checkerIdentity() + '\0' + absolutePath(jsonPath) + '\0' + fileDigest(text));
    std::string known, ignored;
    if (analysis::readInputFile(note, 4096, known, ignored) && known == digest)
      return true;
  }
  std::optional<llvm::json::Value> parsed = analysis::parseJson(text, why);
  if (!parsed) {
    error = jsonPath + ": broken compile database: not valid JSON: " + why;
    return false;
  }
  llvm::json::Array *entries = parsed->getAsArray();
  if (!entries) {
    error = jsonPath + ": broken compile database: expected a JSON array of compile commands";
    return false;
  }
  llvm::SmallString<256> databaseDir(absolutePath(jsonPath));
  llvm::sys::path::remove_filename(databaseDir);
  bool rewritten = false;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    std::string entry = jsonPath + ": broken compile database: entry " + std::to_string(i + 1);
    llvm::json::Object *object = (*entries)[i].getAsObject();
    if (!object) {
      error = entry + " is not an object";
      return false;
    }
    for (const char *key : {"directory", "file"})
      if (!object->getString(key)) {
        error = entry + ": missing or non-string \"" + key + "\"";
        return false;
      }
    llvm::StringRef directory = *object->getString("directory");
    if (directory.empty()) {
      error = entry + ": \"directory\" is empty";
      return false;
    }
    if (!llvm::sys::path::is_absolute(directory)) {
      (*object)["directory"] = absolutePath(directory.str(), std::string(databaseDir.str()));
      rewritten = true;
    }
    const llvm::json::Array *arguments = object->getArray("arguments");
    if (arguments) {
      for (const llvm::json::Value &a : *arguments)
        if (!a.getAsString()) {
          error = entry + ": \"arguments\" must hold only strings";
          return false;
        }
      if (arguments->empty()) {
        error = entry + ": \"arguments\" is empty";
        return false;
      }
    } else if (!object->getString("command")) {
      error = entry + ": needs \"arguments\" (a list) or \"command\" (a string)";
      return false;
    }
  }
  if (rewritten) {
    text = llvm::formatv("{0}", *parsed).str();
  } else if (!note.empty()) {
    saveNote(request, kCheckedNoteName, digest);
  }
  return true;
}

} // namespace

// What in a command decides which code the preprocessor makes of a file: its macros, include
// paths, forced includes and language standard, read with clang's option table (every spelling:
// -DX, -D X, --define-macro=X). -DPIC is left out: libtool compiles each file twice, with and
// without it, and nothing tests it beside the PIC code generation.
std::vector<std::string> preprocessingOf(const std::vector<std::string> &argv) {
  namespace options = clang::driver::options;
  std::vector<std::string> out;
  if (argv.size() < 2 || isClangCl(argv[0]))
    return out;
  std::vector<const char *> raw;
  for (std::size_t i = 1; i < argv.size(); ++i)
    raw.push_back(argv[i].c_str());
  unsigned missingIndex = 0, missingCount = 0;
  llvm::opt::InputArgList list = clang::driver::getDriverOptTable().ParseArgs(
      raw, missingIndex, missingCount, llvm::opt::Visibility(options::ClangOption));
  for (const llvm::opt::Arg *arg : list) {
    const llvm::opt::Option option = arg->getOption().getUnaliasedOption();
    if (!option.matches(options::OPT_D) && !option.matches(options::OPT_U) &&
        !option.matches(options::OPT_I_Group) && !option.matches(options::OPT_clang_i_Group) &&
        !option.matches(options::OPT_std_EQ))
      continue;
    std::string value = llvm::join(arg->getValues(), ",");
    if (option.matches(options::OPT_D) && value == "PIC")
      continue;
    out.push_back(option.getPrefixedName().str() + value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// A file the database lists (as it spells it) and its job, before the file system is asked
// whether the file is there.
struct ListedJob {
  std::string listed;
  CompileJob job;
};

// The job note: the jobs a database's bytes make (clang's reader, @file expansion, the
// adjustments), so that a run over a database it has seen neither parses it again nor adjusts
// every command. The file system's answers (is the file there, its directory, its identity) are
// asked each run.
constexpr char kJobNoteName[] = "database-jobs";

std::string encodeJobNote(const std::vector<ListedJob> &listed) {
  std::string out;
  facts::putVarint(out, listed.size());
  for (const ListedJob &entry : listed) {
    facts::putString(out, entry.listed);
    facts::putString(out, entry.job.file);
    facts::putString(out, entry.job.directory);
    facts::putStrings(out, entry.job.argv);
    facts::putString(out, entry.job.target);
    facts::putVarint(out, entry.job.otherConfigurations);
  }
  return out;
}

// The note's jobs when it was written for `key`; false when it is missing, of another key or
// damaged (the database is then read as without it).
bool readJobNote(const std::string &noteDir, const std::string &key, std::vector<ListedJob> &listed) {
  llvm::SmallString<256> path(noteDir);
  llvm::sys::path::append(path, kJobNoteName);
  std::string bytes, ignored;
  if (!analysis::readInputFile(std::string(path), analysis::kMaxJsonInputBytes, bytes, ignored))
    return false;
  llvm::StringRef in(bytes);
  // The key, then a digest of the rest: a note damaged since it was written is not used.
  if (!in.consume_front(key) || !in.consume_front("\n") || in.size() <= kDigestChars ||
      in[kDigestChars] != '\n')
    return false;
  llvm::StringRef digest = in.take_front(kDigestChars);
  in = in.drop_front(kDigestChars + 1);
  if (digest != fileDigest(in))
    return false;
  std::uint64_t count = 0;
  if (!facts::getVarint(in, count) || count > in.size())
    return false;
  listed.resize(count);
  for (ListedJob &entry : listed) {
    llvm::StringRef listedName, file, directory, target;
    std::uint64_t others = 0;
    if (!facts::getString(in, listedName) || !facts::getString(in, file) ||
        !facts::getString(in, directory) || !facts::getStrings(in, entry.job.argv))
      return false;
    entry.listed = listedName.str();
    entry.job.file = file.str();
    entry.job.directory = directory.str();
    if (!facts::getString(in, target) || !facts::getVarint(in, others) || others > UINT32_MAX)
      return false;
    entry.job.target = target.str();
    entry.job.otherConfigurations = static_cast<unsigned>(others);
  }
  return in.empty();
}

// What the database says of `files` (every C or C++ file it lists when empty), in order. Errors:
// a database clang's reader refuses, a named file it does not list. `respondsToFiles`: some
// command reads an @file.
bool listJobs(const std::string &jsonPath, const std::string &text, const CompileRequest &request,
              const std::vector<std::string> &files, std::vector<ListedJob> &listed,
              bool &respondsToFiles, std::string &error) {
  using namespace clang::tooling;
  std::string loadError;
  std::unique_ptr<JSONCompilationDatabase> json =
      JSONCompilationDatabase::loadFromBuffer(text, loadError, JSONCommandLineSyntax::AutoDetect);
  if (!json) {
    llvm::StringRef message(loadError);
    message.consume_front("Error while parsing JSON.");
    error = jsonPath + ": broken compile database: " + message.trim().str();
    return false;
  }
  std::vector<std::string> names = files;
  if (names.empty()) {
    // getAllFiles() lists them in the order of a hash of their absolute paths: the same database
    // in another checkout (CI's, a copy) would link its units in another order. By path, the
    // order is the same wherever the tree lies.
    std::vector<std::string> allFiles = json->getAllFiles();
    std::sort(allFiles.begin(), allFiles.end());
    for (const std::string &f : allFiles)
      if (isCOrCxxSource(f))
        names.push_back(f);
  }
  // Conservative: any @ in the database (a path may hold one too).
  respondsToFiles = llvm::StringRef(text).contains('@');
  // @file response files in the commands are expanded, relative to each command's directory.
  std::unique_ptr<CompilationDatabase> db =
      expandResponseFiles(std::move(json), llvm::vfs::getRealFileSystem());
  for (const std::string &f : names) {
    std::vector<CompileCommand> commands = db->getCompileCommands(f);
    if (commands.empty()) {
      error = f + ": not in the compile database " + jsonPath;
      return false;
    }
    // A file compiled several ways is checked once, with its first command.
    const CompileCommand &command = commands.front();
    std::vector<std::string> argv = command.CommandLine;
    if (request.haveDashDash) {
      auto end = std::find(argv.begin(), argv.end(), "--");
      argv.insert(end, request.extraArgs.begin(), request.extraArgs.end());
    }
    ListedJob entry{f, {absolutePath(f, command.Directory), command.Directory, adjustCommand(argv, f),
                        outputTarget(argv, command.Output)}};
    if (commands.size() > 1) {
      std::vector<std::string> first = preprocessingOf(command.CommandLine);
      for (std::size_t c = 1; c < commands.size(); ++c)
        entry.job.otherConfigurations += preprocessingOf(commands[c].CommandLine) != first;
    }
    listed.push_back(std::move(entry));
  }
  return true;
}

} // namespace

bool collectJobs(const CompileRequest &request, std::vector<CompileJob> &jobs,
                 std::string &error) {
  using namespace clang::tooling;
  jobs.clear();
  std::vector<std::string> files;
  for (const std::string &f : request.files) {
    std::string abs = absolutePath(f);
    if (!fileExists(abs)) {
      error = f + (llvm::sys::fs::is_directory(abs) ? ": is a directory, not a source file"
                   : llvm::sys::fs::exists(abs)   ? ": not a regular file"
                                                  : ": no such file");
      return false;
    }
    files.push_back(abs);
  }
  // One job per file, however many names it is given under (a symlink alias is the same file:
  // two parses could only disagree, and --fix would edit it twice).
  // Identity by device and inode (one stat, not realpath's walk of every path component: a
  // tenth of a warm run over a database of small files); by real path when stat fails.
  std::set<std::string> seen;
  std::set<llvm::sys::fs::UniqueID> seenIds;
  auto firstTime = [&](const std::string &file) {
    llvm::sys::fs::UniqueID id;
    if (!llvm::sys::fs::getUniqueID(file, id))
      return seenIds.insert(id).second;
    return seen.insert(realPathOf(file)).second;
  };

  if (request.buildPath.empty()) {
    if (files.empty()) {
      error = "no input files (give FILE... or -p BUILD_DIR)";
      return false;
    }
    llvm::SmallString<256> cwd;
    llvm::sys::fs::current_path(cwd);
    // @file response files are expanded, as clang-tidy does.
    std::unique_ptr<CompilationDatabase> db = expandResponseFiles(
        std::make_unique<FixedCompilationDatabase>(cwd, request.extraArgs),
        llvm::vfs::getRealFileSystem());
    for (const std::string &f : files) {
      if (!firstTime(f))
        continue;
      std::vector<CompileCommand> commands = db->getCompileCommands(f);
      if (commands.empty())
        continue;
      jobs.push_back({f, commands[0].Directory, adjustCommand(commands[0].CommandLine, f)});
    }
    return true;
  }

  std::string jsonPath = databasePath(request.buildPath);
  if (!llvm::sys::fs::exists(jsonPath)) {
    error = jsonPath + ": no compile database here (-p expects a build directory holding "
                       "compile_commands.json, or the file itself)";
    return false;
  }
  std::string text;
  if (!validateDatabase(jsonPath, request, text, error))
    return false;
  // Every C or C++ file of the database (assembler and other languages built alongside are no
  // business of the checks), or the files named, each with its command: from the job note when
  // it is of these bytes and arguments, else from clang's reader.
  bool everyFile = files.empty();
  std::string noteKey;
  if (everyFile && !request.checkedNoteDir.empty())
    noteKey = fileDigest(checkerIdentity() + '\0' + absolutePath(jsonPath) + '\0' + fileDigest(text) +
                         '\0' + llvm::join(request.extraArgs, std::string(1, '\0')) +
                         (request.haveDashDash ? "\1" : "\2"));
  std::vector<ListedJob> listed;
  if (noteKey.empty() || !readJobNote(request.checkedNoteDir, noteKey, listed)) {
    listed.clear();
    bool respondsToFiles = false;
    if (!listJobs(jsonPath, text, request, files, listed, respondsToFiles, error))
      return false;
    // A command with an @file takes its arguments from that file, which the note's key does not
    // cover: such a database is read anew each run.
    if (!noteKey.empty() && !respondsToFiles) {
      std::string body = encodeJobNote(listed);
      saveNote(request, kJobNoteName, noteKey + "\n" + fileDigest(body) + "\n" + body);
    }
  }
  if (everyFile) {
    if (listed.empty()) {
      error = jsonPath + ": the compile database lists no C or C++ file";
      return false;
    }
    // Listed but absent: left out and named, or an input error.
    std::vector<ListedJob> present;
    for (ListedJob &entry : listed) {
      if (fileExists(entry.listed)) {
        present.push_back(std::move(entry));
      } else if (request.missing) {
        request.missing->push_back(entry.listed);
      } else {
        error = jsonPath + ": lists " + entry.listed + ", which does not exist (build the project first?)";
        return false;
      }
    }
    listed = std::move(present);
  }
  std::set<std::string> requested;
  for (ListedJob &entry : listed) {
    if (!requested.insert(entry.listed).second)
      continue;
    if (!llvm::sys::fs::is_directory(entry.job.directory)) {
      error = jsonPath + ": the directory of " + entry.listed + " (" + entry.job.directory +
              ") does not exist";
      return false;
    }
    if (!firstTime(entry.job.file))
      continue;
    jobs.push_back(std::move(entry.job));
  }
  return true;
}

void writeDatabaseNotes(const std::string &noteDir,
                        const std::vector<std::pair<std::string, std::string>> &notes) {
  // Only into a cache directory already marked as afunix-check's. A failure only costs the work
  // the note would have spared, next time.
  std::string why;
  if (noteDir.empty() || notes.empty() ||
      FactsCache::adoptable(noteDir, why) != FactsCache::Adoption::Ours)
    return;
  for (const auto &[name, bytes] : notes) {
    llvm::SmallString<256> path(noteDir);
    llvm::sys::path::append(path, name);
    std::string ignored;
    writeOwnFileAtomically(std::string(path), bytes, ignored);
  }
}

} // namespace afunix::check
