// The facts file: one translation unit's facts (Facts.h) as versioned JSON, described in
// docs/facts-format.md. Reading validates everything (versions, enums, every index), so a
// damaged or foreign file is refused with a message, never half-trusted.
#pragma once

#include "Facts.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace afunix::facts {

void writeUnit(const Unit &unit, llvm::raw_ostream &out);
std::string writeUnit(const Unit &unit);
llvm::Expected<Unit> readUnit(llvm::StringRef text);

} // namespace afunix::facts
