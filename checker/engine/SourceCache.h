// Source text by path, read once per run: turns byte offsets into lines and columns (also in the
// UTF-16 code units SARIF counts), and gives the line a finding is on (baselines and fingerprints
// key on it, NOLINT comments are read there). Each file's line starts are indexed once, so a file
// with thousands of findings costs a binary search per finding, not a scan from its start.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace afunix::check {

class SourceCache {
public:
  // The whole file, or nullptr when it cannot be read.
  const std::string *contents(const std::string &path) {
    const File *file = get(path);
    return file ? &file->text : nullptr;
  }

  struct Position {
    unsigned line = 0, column = 0; // column in bytes, 1-based
    std::string lineText;
  };

  Position locate(const std::string &path, unsigned offset) {
    Position pos;
    const File *file = get(path);
    if (!file)
      return pos;
    offset = std::min<std::size_t>(offset, file->text.size());
    // The last line starting at or before `offset`.
    auto next = std::upper_bound(file->lineStarts.begin(), file->lineStarts.end(), offset);
    std::size_t index = static_cast<std::size_t>(next - file->lineStarts.begin()) - 1;
    std::size_t lineStart = file->lineStarts[index];
    pos.line = static_cast<unsigned>(index) + 1;
    pos.column = static_cast<unsigned>(offset - lineStart) + 1;
    std::size_t lineEnd = file->text.find('\n', lineStart);
    llvm::StringRef line(file->text.data() + lineStart,
                         (lineEnd == std::string::npos ? file->text.size() : lineEnd) - lineStart);
    pos.lineText = line.trim().str();
    return pos;
  }

  // The text of `line` (1-based) without its newline; empty past the end.
  llvm::StringRef line(const std::string &path, unsigned number) {
    const File *file = get(path);
    if (!file || number == 0 || number > file->lineStarts.size())
      return {};
    std::size_t begin = file->lineStarts[number - 1];
    std::size_t end = number < file->lineStarts.size() ? file->lineStarts[number] - 1 : file->text.size();
    return llvm::StringRef(file->text).slice(begin, end);
  }

  // The 1-based numbers of the lines that contain `needle`, in order (found once per file).
  const std::vector<unsigned> &linesMentioning(const std::string &path, const std::string &needle) {
    static const std::vector<unsigned> none;
    File *file = get(path);
    if (!file)
      return none;
    auto [it, fresh] = file->mentions.try_emplace(needle);
    if (fresh)
      for (std::size_t at = file->text.find(needle); at != std::string::npos;
           at = file->text.find(needle, at + needle.size())) {
        auto next = std::upper_bound(file->lineStarts.begin(), file->lineStarts.end(), at);
        unsigned number = static_cast<unsigned>(next - file->lineStarts.begin());
        if (it->second.empty() || it->second.back() != number)
          it->second.push_back(number);
      }
    return it->second;
  }

  // How many lines the file has: a last line without a newline counts, nothing after a final
  // newline does. 0 when unreadable.
  unsigned lineCount(const std::string &path) {
    const File *file = get(path);
    if (!file)
      return 0;
    bool endsInNewline = !file->text.empty() && file->text.back() == '\n';
    return static_cast<unsigned>(file->lineStarts.size()) - (endsInNewline ? 1 : 0);
  }

  // Byte offset of the start of `line` (1-based), or -1 when there is no such line.
  long lineStart(const std::string &path, unsigned line) {
    const File *file = get(path);
    if (!file || line == 0 || line > file->lineStarts.size())
      return -1;
    return static_cast<long>(file->lineStarts[line - 1]);
  }

  // UTF-16 code units in bytes [begin, end) of the file; `end - begin` when the file is
  // unreadable or the bytes are not valid UTF-8.
  unsigned utf16Units(const std::string &path, unsigned begin, unsigned end) {
    const File *file = get(path);
    if (!file || end > file->text.size() || begin > end)
      return end - begin;
    llvm::StringRef bytes = llvm::StringRef(file->text).slice(begin, end);
    unsigned units = 0;
    for (std::size_t i = 0; i < bytes.size();) {
      unsigned char c = bytes[i];
      unsigned length = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      if (i + length > bytes.size())
        return end - begin;
      units += length == 4 ? 2 : 1; // astral code points are surrogate pairs
      i += length;
    }
    return units;
  }

  // A byte offset as UTF-16 code units from the start of the file (SARIF's charOffset): the units
  // before its line, counted once per file, plus those on its line before it.
  unsigned utf16Offset(const std::string &path, unsigned offset) {
    File *file = get(path);
    if (!file || offset > file->text.size())
      return utf16Units(path, 0, offset);
    if (file->utf16LineStarts.empty()) {
      file->utf16LineStarts.reserve(file->lineStarts.size());
      unsigned units = 0;
      for (std::size_t i = 0; i < file->lineStarts.size(); ++i) {
        if (i > 0)
          units += utf16Units(path, file->lineStarts[i - 1], file->lineStarts[i]);
        file->utf16LineStarts.push_back(units);
      }
    }
    auto next = std::upper_bound(file->lineStarts.begin(), file->lineStarts.end(), offset);
    std::size_t index = static_cast<std::size_t>(next - file->lineStarts.begin()) - 1;
    return file->utf16LineStarts[index] + utf16Units(path, file->lineStarts[index], offset);
  }

  // A 1-based byte column on `line` as a 1-based UTF-16 column (SARIF's default columnKind).
  unsigned utf16Column(const std::string &path, unsigned line, unsigned column) {
    long start = lineStart(path, line);
    if (start < 0 || column == 0)
      return column;
    return 1 + utf16Units(path, static_cast<unsigned>(start), static_cast<unsigned>(start) + column - 1);
  }

private:
  struct File {
    std::string text;
    std::vector<std::size_t> lineStarts; // [0] = 0, then one past each '\n'
    std::unordered_map<std::string, std::vector<unsigned>> mentions; // linesMentioning()
    std::vector<unsigned> utf16LineStarts;                            // utf16Offset()
  };

  File *get(const std::string &path) {
    auto it = files_.find(path);
    if (it != files_.end())
      return it->second.get();
    std::unique_ptr<File> file;
    if (auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                                  /*RequiresNullTerminator=*/false)) {
      file = std::make_unique<File>();
      file->text = (*buffer)->getBuffer().str();
      file->lineStarts.push_back(0);
      for (std::size_t i = 0; i < file->text.size(); ++i)
        if (file->text[i] == '\n')
          file->lineStarts.push_back(i + 1);
    }
    return files_.emplace(path, std::move(file)).first->second.get();
  }
  std::unordered_map<std::string, std::unique_ptr<File>> files_;
};

} // namespace afunix::check
