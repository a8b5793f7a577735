// A fingerprint of file contents (SHA-1, hex): what a facts file records for each file it points
// into, and what --fix compares before it edits a file (Edit::baseDigest).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace afunix::analysis {

std::string contentDigest(llvm::StringRef bytes);

} // namespace afunix::analysis
