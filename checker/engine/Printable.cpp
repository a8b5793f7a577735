#include "Printable.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace afunix::check {

std::string printable(llvm::StringRef text, bool keepTabs) {
  std::string out;
  llvm::raw_string_ostream os(out);
  const auto *bytes = reinterpret_cast<const llvm::UTF8 *>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    if (c < 0x80) {
      if ((c < 0x20 && !(keepTabs && c == '\t')) || c == 0x7f)
        os << llvm::format("<U+%04X>", c);
      else
        os << static_cast<char>(c);
      ++i;
      continue;
    }
    unsigned length = llvm::getNumBytesForUTF8(c);
    if (i + length > text.size() ||
        !llvm::isLegalUTF8Sequence(bytes + i, bytes + i + length)) {
      os << llvm::format("<%02X>", c);
      ++i;
      continue;
    }
    llvm::UTF32 code = 0;
    const llvm::UTF8 *from = bytes + i;
    llvm::UTF32 *to = &code;
    llvm::ConvertUTF8toUTF32(&from, bytes + i + length, &to, to + 1, llvm::strictConversion);
    if (code >= 0x80 && code <= 0x9f)
      os << llvm::format("<U+%04X>", code);
    else
      os << text.substr(i, length);
    i += length;
  }
  return out;
}

std::string utf8ForJson(llvm::StringRef text) {
  if (llvm::json::isUTF8(text))
    return text.str();
  return llvm::json::fixUTF8(text);
}

} // namespace afunix::check
