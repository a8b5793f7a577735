#pragma once

#include "ClangTidyModule.h"

namespace clang::tidy::afunix {

// Adds every afunix-* check; each check's name is its rule id in rules/.
void registerAfunixChecks(ClangTidyCheckFactories &factories);

} // namespace clang::tidy::afunix
