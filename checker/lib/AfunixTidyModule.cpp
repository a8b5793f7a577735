// Registers the afunix-* checks with clang-tidy's module registry. The same registration serves
// afunix-check (which links this library), the clang-tidy plugin and afunix-clangd.
#include "ClangTidyModule.h"
#include "ClangTidyModuleRegistry.h"

#include "AfunixChecks.h"

namespace clang::tidy::afunix {

class AfunixModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &factories) override {
    registerAfunixChecks(factories);
  }
};

} // namespace clang::tidy::afunix

static clang::tidy::ClangTidyModuleRegistry::Add<clang::tidy::afunix::AfunixModule>
    AfunixModuleRegistration("afunix-module", "Linux AF_UNIX compatibility checks.");

// Front ends that link the static archive reference this symbol so the registration above is
// not dropped by the linker.
volatile int AfunixModuleAnchorSource = 0;
