#include "AfunixChecks.h"

namespace clang::tidy::afunix {

void registerAfunixChecks(ClangTidyCheckFactories &factories) {
  (void)factories; // checks are added here as they land (one line per rule)
}

} // namespace clang::tidy::afunix
