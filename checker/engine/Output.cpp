#include "Output.h"

#include "Printable.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Unicode.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <memory>

namespace afunix::check {

std::vector<std::pair<std::string, unsigned>> countBySeverity(const RunResult &result) {
  std::vector<std::pair<std::string, unsigned>> out{{"error", 0}, {"warning", 0}, {"note", 0}};
  for (const Finding &f : result.findings) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto &e) { return e.first == f.severity; });
    if (it == out.end())
      it = out.insert(out.end(), {f.severity, 0});
    ++it->second;
  }
  return out;
}

std::string describeSeverities(const RunResult &result) {
  std::string out;
  for (const auto &[severity, count] : countBySeverity(result)) {
    if (!count)
      continue;
    out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + severity +
           (count == 1 ? "" : severity == "error" || severity == "warning" || severity == "note" ? "s" : "");
  }
  return out;
}

unsigned countParseErrors(const RunResult &result) {
  unsigned count = 0;
  for (const FileOutcome &file : result.files)
    count += file.parsed ? 0 : 1;
  return count;
}

namespace {

std::string displayPath(const std::string &path, const std::string &base) {
  if (base.empty() || path.empty())
    return path;
  llvm::StringRef p(path);
  std::string prefix = base.back() == '/' ? base : base + "/";
  if (p.starts_with(prefix))
    return p.drop_front(prefix.size()).str();
  return path;
}

class Lines {
public:
  // The untrimmed line `line` of `path`, or nothing when unreadable.
  std::optional<std::string> get(const std::string &path, unsigned line) {
    auto it = files_.find(path);
    if (it == files_.end()) {
      auto buffer = llvm::MemoryBuffer::getFile(path, false, false);
      it = files_.emplace(path, buffer ? std::move(*buffer) : nullptr).first;
    }
    if (!it->second || line == 0)
      return std::nullopt;
    llvm::StringRef text = it->second->getBuffer();
    for (unsigned i = 1; i < line; ++i) {
      std::size_t nl = text.find('\n');
      if (nl == llvm::StringRef::npos)
        return std::nullopt;
      text = text.drop_front(nl + 1);
    }
    return text.take_until([](char c) { return c == '\n' || c == '\r'; }).str();
  }

private:
  std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> files_;
};

void writeLocation(llvm::raw_ostream &out, const SourcePoint &where, const TextOptions &options) {
  if (where.file.empty())
    return;
  out << printable(displayPath(where.file, options.relativeTo)) << ':' << where.line << ':'
      << where.column << ": ";
}

// One source line as a terminal shows it: tabs expanded to clang's tab stop of 8, control
// characters and bad bytes made visible (printable()), and where each byte starts on screen.
struct DisplayLine {
  std::string text;
  std::vector<unsigned> columnOf; // byte index -> display column (0-based); size = bytes + 1
};

DisplayLine layOut(llvm::StringRef line) {
  constexpr unsigned kTabStop = 8;
  DisplayLine d;
  unsigned column = 0;
  size_t i = 0;
  while (i < line.size()) {
    unsigned char c = line[i];
    size_t length = c < 0x80 ? 1 : llvm::getNumBytesForUTF8(c);
    if (length == 0 || i + length > line.size())
      length = 1;
    std::string shown;
    unsigned width = 0;
    if (c == '\t') {
      width = kTabStop - column % kTabStop;
      shown.assign(width, ' ');
    } else {
      llvm::StringRef piece = line.substr(i, length);
      shown = printable(piece, /*keepTabs=*/false);
      if (shown == piece) {
        int w = llvm::sys::unicode::columnWidthUTF8(piece);
        width = w < 0 ? unsigned(shown.size()) : unsigned(w);
      } else {
        width = unsigned(shown.size()); // an escape such as <U+001B> or <FF>
      }
    }
    for (size_t b = 0; b < length; ++b)
      d.columnOf.push_back(column);
    d.text += shown;
    column += width;
    i += length;
  }
  d.columnOf.push_back(column);
  return d;
}

void writeSource(llvm::raw_ostream &out, Lines &lines, const SourcePoint &where,
                 const std::vector<SourceSpan> &spans, const TextOptions &options) {
  if (!options.showSource || where.file.empty())
    return;
  std::optional<std::string> line = lines.get(where.file, where.line);
  if (!line)
    return;
  DisplayLine d = layOut(*line);
  out << d.text << '\n';
  auto displayColumn = [&](unsigned byteColumn) { // 1-based byte column -> display column
    size_t index = std::min<size_t>(byteColumn ? byteColumn - 1 : 0, line->size());
    return d.columnOf[index];
  };
  std::string marks(d.columnOf.back() + 1, ' ');
  for (const SourceSpan &span : spans) {
    if (span.begin.file != where.file || span.begin.line > where.line ||
        span.end.line < where.line)
      continue;
    unsigned from = span.begin.line < where.line ? 0 : displayColumn(span.begin.column);
    unsigned to = span.end.line > where.line ? d.columnOf.back() : displayColumn(span.end.column);
    for (unsigned c = from; c < to && c < marks.size(); ++c)
      marks[c] = '~';
  }
  unsigned caret = displayColumn(where.column);
  if (caret < marks.size())
    marks[caret] = '^';
  llvm::StringRef trimmed = llvm::StringRef(marks).rtrim(' ');
  if (options.color)
    out.changeColor(llvm::raw_ostream::GREEN, true);
  out << trimmed;
  if (options.color)
    out.resetColor();
  out << '\n';
}

llvm::raw_ostream::Colors colorOf(const std::string &severity) {
  if (severity == "error")
    return llvm::raw_ostream::RED;
  if (severity == "warning")
    return llvm::raw_ostream::MAGENTA;
  return llvm::raw_ostream::BLACK;
}

void writeDiagnostic(llvm::raw_ostream &out, const SourcePoint &where, const std::string &level,
                     const std::string &message, const std::string &rule,
                     const TextOptions &options) {
  if (options.color)
    out.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
  writeLocation(out, where, options);
  if (options.color)
    out.changeColor(colorOf(level), true);
  out << level << ": ";
  if (options.color)
    out.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
  out << printable(message);
  if (!rule.empty())
    out << " [" << rule << "]";
  if (options.color)
    out.resetColor();
  out << '\n';
}

} // namespace

void writeText(const RunResult &result, const TextOptions &options, llvm::raw_ostream &out) {
  Lines lines;
  bool first = true;
  auto write = [&](const Finding &f) {
    // An empty line between findings, for a reader's eye.
    if (!first)
      out << '\n';
    first = false;
    writeDiagnostic(out, f.where, f.severity, f.message, f.rule, options);
    writeSource(out, lines, f.where, f.spans, options);
    for (const Note &n : f.notes) {
      writeDiagnostic(out, n.where, "note", n.message, "", options);
      writeSource(out, lines, n.where, n.spans, options);
    }
  };
  // Findings at level note first: after a warning, CodeChecker's report-converter (which reads
  // clang's format) takes one ("file:1:2: note: ... [rule]") and its notes for more notes of that
  // warning; before every warning and error it is a line it skips.
  for (const Finding &f : result.findings)
    if (f.severity == "note")
      write(f);
  for (const Finding &f : result.findings)
    if (f.severity != "note")
      write(f);
}

void writeJson(const RunResult &result, llvm::raw_ostream &out) {
  llvm::json::OStream json(out, 2);
  auto text = [&](llvm::StringRef key, const std::string &value) {
    json.attribute(key, utf8ForJson(value));
  };
  auto point = [&](const SourcePoint &p) {
    text("file", p.file);
    json.attribute("line", static_cast<int64_t>(p.line));
    json.attribute("column", static_cast<int64_t>(p.column));
  };
  json.object([&] {
    json.attribute("version", 1);
    json.attributeArray("findings", [&] {
      for (const Finding &f : result.findings)
        json.object([&] {
          json.attribute("rule", f.rule);
          json.attribute("severity", f.severity);
          point(f.where);
          text("message", f.message);
          json.attributeArray("notes", [&] {
            for (const Note &n : f.notes)
              json.object([&] {
                point(n.where);
                text("message", n.message);
              });
          });
          json.attributeArray("fixes", [&] {
            for (const Edit &e : f.fixes)
              json.object([&] {
                text("file", e.file);
                json.attribute("offset", static_cast<int64_t>(e.offset));
                json.attribute("length", static_cast<int64_t>(e.length));
                text("text", e.text);
              });
          });
        });
    });
    json.attributeObject("summary", [&] {
      json.attribute("files", static_cast<int64_t>(result.files.size()));
      json.attribute("findings", static_cast<int64_t>(result.findings.size()));
      json.attribute("parse_errors", static_cast<int64_t>(countParseErrors(result)));
      json.attribute("skipped", static_cast<int64_t>(llvm::count_if(
                                    result.files, [](const FileOutcome &f) { return f.skipped; })));
      const DroppedCounts &d = result.dropped;
      json.attributeObject("not_shown", [&] {
        json.attribute("nolint", static_cast<int64_t>(d.nolint));
        json.attribute("system_headers", static_cast<int64_t>(d.systemHeaders));
        json.attribute("header_filter", static_cast<int64_t>(d.headerFilter));
        json.attribute("excluded", static_cast<int64_t>(d.excluded));
        json.attribute("line_filter", static_cast<int64_t>(d.lineFilter));
        json.attribute("baseline", static_cast<int64_t>(d.baseline));
        json.attribute("disabled", static_cast<int64_t>(d.disabled));
      });
    });
    json.attributeArray("stopped_at_work_bound", [&] {
      for (const std::string &rule : result.stoppedAtBound)
        json.value(rule);
    });
    json.attributeArray("skipped", [&] {
      for (const FileOutcome &file : result.files)
        if (file.skipped)
          json.value(utf8ForJson(file.file));
    });
    json.attributeArray("unparsed", [&] {
      for (const FileOutcome &file : result.files)
        if (!file.parsed)
          json.object([&] {
            text("file", file.file);
            json.attributeArray("errors", [&] {
              for (const std::string &e : file.errors)
                json.value(utf8ForJson(e));
            });
          });
    });
  });
  out << '\n';
}

} // namespace afunix::check
