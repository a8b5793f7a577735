// NOLINT comments, read the way clang-tidy reads them, for findings that do not come through
// clang-tidy's diagnostic engine (the whole-program run): `// NOLINT`, `// NOLINT(rule, glob*)`
// on the finding's line, `// NOLINTNEXTLINE(...)` on the line above, and
// `// NOLINTBEGIN(...)` ... `// NOLINTEND(...)` around it.
#pragma once

#include "SourceCache.h"

#include <string>

namespace afunix::check {

bool suppressedByNolint(SourceCache &sources, const std::string &file, unsigned line,
                        const std::string &rule);

} // namespace afunix::check
