// afunix-clangd: clangd 19 with the afunix-* checks built in. Released clangd binaries cannot
// load clang-tidy plugins, so this is clangd's own main linked with the checks archive.
#include <cstring>
#include <string>
#include <vector>

#include "StoredFacts.h"

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

bool hasFlag(int argc, char *argv[], const char *name) {
  size_t length = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (arg[0] == '-' && arg[1] == '-')
      ++arg; // clangd (LLVM cl) accepts -flag and --flag alike
    if (std::strncmp(arg, name, length) == 0 && (arg[length] == '\0' || arg[length] == '='))
      return true;
  }
  return false;
}

} // namespace

int main(int argc, char *argv[]) {
  if (hasFlag(argc, argv, "-version"))
    llvm::outs() << "afunix-clangd " << AFUNIX_VERSION << " (afunix-* clang-tidy checks built in)\n";

  // clangd looks for stddef.h and friends beside its own binary; installed elsewhere it must be
  // told where clang 19's resource dir is, or every file fails to parse.
  std::vector<char *> args(argv, argv + argc);
  std::string resourceDir = std::string("--resource-dir=") + AFUNIX_CLANG_RESOURCE_DIR;
  if (!hasFlag(argc, argv, "-resource-dir"))
    args.insert(args.begin() + 1, resourceDir.data());
  args.push_back(nullptr);
  // The editor sees the whole project: the file being edited is linked with the facts the last
  // `afunix-check -p` run stored beside the compile database.
  afunix::analysis::StoredFacts::enableForEditor();
  return clang::clangd::clangdMain(static_cast<int>(args.size()) - 1, args.data());
}
