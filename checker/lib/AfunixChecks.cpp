#include "AfunixChecks.h"
#include "FdCycleCheck.h"
#include "FdFloodCheck.h"
#include "FdLimitCheck.h"

namespace clang::tidy::afunix {

void registerAfunixChecks(ClangTidyCheckFactories &factories) {
  (void)factories; // checks are added here as they land (one line per rule)
  factories.registerCheck<FdFloodCheck>("afunix-fd-flood");
  factories.registerCheck<FdCycleCheck>("afunix-fd-cycle");
  factories.registerCheck<FdLimitCheck>("afunix-fd-limit");
}

} // namespace clang::tidy::afunix
