#include "AfunixChecks.h"
#include "CredsWithoutPasscredCheck.h"
#include "PasscredTooLateCheck.h"
#include "PasscredWrongFamilyCheck.h"
#include "FdCycleCheck.h"
#include "FdFloodCheck.h"
#include "FdLimitCheck.h"

namespace clang::tidy::afunix {

void registerAfunixChecks(ClangTidyCheckFactories &factories) {
  (void)factories; // checks are added here as they land (one line per rule)
  factories.registerCheck<CredsWithoutPasscredCheck>("afunix-creds-without-passcred");
  factories.registerCheck<PasscredTooLateCheck>("afunix-passcred-too-late");
  factories.registerCheck<PasscredWrongFamilyCheck>("afunix-passcred-wrong-family");
  factories.registerCheck<FdFloodCheck>("afunix-fd-flood");
  factories.registerCheck<FdCycleCheck>("afunix-fd-cycle");
  factories.registerCheck<FdLimitCheck>("afunix-fd-limit");
}

} // namespace clang::tidy::afunix
