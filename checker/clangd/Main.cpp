// afunix-clangd: clangd 19 with the afunix-* checks built in. Released clangd binaries cannot
// load clang-tidy plugins, so this is clangd's own main linked with the checks archive, plus two
// things clangd cannot do for checks it does not know (LspOutput.h): diagnostic links that open
// the rule's page, and a log line when the afunix checks did not run on a file.
#include "LspOutput.h"

#include "AfunixCheck.h"
#include "DocsLocation.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "StoredFacts.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace clang::clangd {
// Defined in libclangdMain.a (clang-tools-extra/clangd/tool/ClangdMain.cpp); the header is not
// installed by Debian's packages.
int clangdMain(int argc, char *argv[]);
} // namespace clang::clangd

// Keeps the afunix module's registration object in the link (see AfunixTidyModule.cpp).
extern volatile int AfunixModuleAnchorSource;
[[maybe_unused]] static int AfunixModuleAnchorDestination = AfunixModuleAnchorSource;

namespace {

constexpr const char *kDocsUrlFlag = "--afunix-docs-url";

// The value of `-name`, `--name`, `-name=v` or `--name=v` (LLVM cl accepts all), or nullptr.
const char *flagValue(int argc, char *argv[], const char *name, bool &present) {
  size_t length = std::strlen(name);
  present = false;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (arg[0] == '-' && arg[1] == '-')
      ++arg;
    if (std::strncmp(arg, name, length) == 0 && (arg[length] == '\0' || arg[length] == '=')) {
      present = true;
      return arg[length] == '=' ? arg + length + 1 : nullptr;
    }
  }
  return nullptr;
}

bool hasFlag(int argc, char *argv[], const char *name) {
  bool present = false;
  flagValue(argc, argv, name, present);
  return present;
}

// A line in clangd's own log format ("I[hh:mm:ss.mmm] ...") on stderr.
void logLine(const std::string &message) {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t seconds = system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&seconds, &local);
  unsigned millis = unsigned(duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000);
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "I[%02d:%02d:%02d.%03u] ", local.tm_hour, local.tm_min,
                local.tm_sec, millis);
  llvm::errs() << stamp << message << "\n";
  llvm::errs().flush();
}

// Once per file whose diagnostics were published although no afunix check was created for it.
void logChecksDidNotRun(const std::string &file) {
  logLine("afunix-clangd: no afunix check ran on " + file +
          ": clangd runs a clang-tidy check only when its configuration adds it and, unless "
          "FastCheckFilter is Loose or None, only checks it has timed itself, which excludes every "
          "afunix check. Add to the project's .clangd: " +
          afunix::clangd::kClangdConfigLine + " (see guide-editors.md).");
}

} // namespace

int main(int argc, char *argv[]) {
  if (hasFlag(argc, argv, "-version"))
    llvm::outs() << "afunix-clangd " << AFUNIX_VERSION << " (afunix-* clang-tidy checks built in)\n";

  // Our own option, taken out before clangd (which refuses options it does not know) sees it.
  std::string docsUrl;
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (i > 0 && (arg.starts_with(std::string(kDocsUrlFlag) + "=") ||
                  arg.starts_with(std::string(kDocsUrlFlag + 1) + "="))) {
      docsUrl = arg.split('=').second.str();
      std::string why;
      if (!afunix::check::validDocsUrl(docsUrl, why)) {
        llvm::errs() << "afunix-clangd: " << kDocsUrlFlag << ": " << why << "\n";
        return 1;
      }
      continue;
    }
    args.push_back(argv[i]);
  }

  // clangd looks for stddef.h and friends beside its own binary; installed elsewhere it must be
  // told where clang 19's resource dir is, or every file fails to parse.
  std::string resourceDir = std::string("--resource-dir=") + AFUNIX_CLANG_RESOURCE_DIR;
  if (!hasFlag(argc, argv, "-resource-dir"))
    args.insert(args.begin() + 1, resourceDir.data());

  // The preamble (the headers) is parsed without function bodies; the standard library's
  // forwarding functions (emplace_back, make_unique, allocator construct) need theirs, or the
  // program's constructor templates they call are never instantiated and what the arguments
  // carry into the object is lost (afunix-check parses them too: Extraction.cpp).
  std::string parseForwarding = "--parse-forwarding-functions";
  if (!hasFlag(argc, argv, "-parse-forwarding-functions"))
    args.insert(args.begin() + 1, parseForwarding.data());

  afunix::check::DocsLocation docs = afunix::check::findDocs(docsUrl, kDocsUrlFlag);
  afunix::clangd::watchAfunixChecks();
  // Each quick fix titled by what it does (a note carries the fix-its; AfunixCheck.h).
  clang::tidy::afunix::titleFixesWithNotes(true);

  bool checkPresent = false;
  const char *checkFile = flagValue(argc, argv, "-check", checkPresent);
  bool lspSession = !checkPresent && !hasFlag(argc, argv, "-version") &&
                    !hasFlag(argc, argv, "-help") && !hasFlag(argc, argv, "-help-hidden") &&
                    !hasFlag(argc, argv, "-help-list") && !hasFlag(argc, argv, "-print-options");
  afunix::clangd::Session session(docs.baseUrl, afunix::clangd::checksRan);
  session.onChecksDidNotRun = logChecksDidNotRun;
  afunix::clangd::Relays relays(session);
  bool relaying = lspSession && relays.start();
  if (lspSession) {
    std::string local = afunix::check::localDocsDir(argv[0]);
    logLine("afunix-clangd: rule pages: " +
            (docs.baseUrl.empty()
                 ? "no published URL, diagnostic links removed (" + std::string(kDocsUrlFlag) +
                       "=URL or AFUNIX_DOCS_URL sets one" +
                       (local.empty() ? "" : "; the pages are in " + local + "/rules") + ")"
                 : docs.baseUrl + " (" + docs.origin + ")"));
  }

  // The editor sees the whole project: the file being edited is linked with the facts the last
  // `afunix-check -p` run stored beside the compile database (docs/facts-format.md).
  afunix::analysis::StoredFacts::enableForEditor();

  std::vector<char *> argvOut = args;
  argvOut.push_back(nullptr);
  int status = clang::clangd::clangdMain(static_cast<int>(argvOut.size()) - 1, argvOut.data());
  if (relaying)
    relays.finish();
  if (checkPresent && checkFile && *checkFile) {
    llvm::SmallString<256> path(checkFile);
    llvm::sys::fs::make_absolute(path);
    if (afunix::clangd::isSourceFile(std::string(path.str())) &&
        !afunix::clangd::checksRan(std::string(path.str())))
      logChecksDidNotRun(std::string(path.str()));
  }
  return status;
}
