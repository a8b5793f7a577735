#include "Digest.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA1.h"

namespace afunix::analysis {

std::string contentDigest(llvm::StringRef bytes) {
  std::array<uint8_t, 20> digest = llvm::SHA1::hash(llvm::arrayRefFromStringRef(bytes));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

} // namespace afunix::analysis
