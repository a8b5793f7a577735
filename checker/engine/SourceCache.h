// Source text by path, read once per run: turns byte offsets into lines and columns, and gives
// the line a finding is on (baselines and fingerprints key on it, NOLINT comments are read there).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>

namespace afunix::check {

class SourceCache {
public:
  // The whole file, or nullptr when it cannot be read.
  const std::string *contents(const std::string &path) { return get(path); }

  struct Position {
    unsigned line = 0, column = 0;
    std::string lineText;
  };

  Position locate(const std::string &path, unsigned offset) {
    Position pos;
    const std::string *text = get(path);
    if (!text)
      return pos;
    offset = std::min<std::size_t>(offset, text->size());
    std::size_t lineStart = 0;
    if (offset > 0) {
      std::size_t newline = text->rfind('\n', offset - 1);
      if (newline != std::string::npos)
        lineStart = newline + 1;
    }
    pos.line = 1 + static_cast<unsigned>(std::count(text->begin(), text->begin() + lineStart, '\n'));
    pos.column = static_cast<unsigned>(offset - lineStart) + 1;
    std::size_t lineEnd = text->find('\n', lineStart);
    llvm::StringRef line(text->data() + lineStart,
                         (lineEnd == std::string::npos ? text->size() : lineEnd) - lineStart);
    pos.lineText = line.trim().str();
    return pos;
  }

private:
  const std::string *get(const std::string &path) {
    auto it = files_.find(path);
    if (it != files_.end())
      return it->second.get();
    std::unique_ptr<std::string> text;
    if (auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                                  /*RequiresNullTerminator=*/false))
      text = std::make_unique<std::string>((*buffer)->getBuffer().str());
    return files_.emplace(path, std::move(text)).first->second.get();
  }
  std::unordered_map<std::string, std::unique_ptr<std::string>> files_;
};

} // namespace afunix::check
