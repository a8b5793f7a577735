#include "Output.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>

namespace afunix::check {

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
  out << displayPath(where.file, options.relativeTo) << ':' << where.line << ':' << where.column
      << ": ";
}

void writeSource(llvm::raw_ostream &out, Lines &lines, const SourcePoint &where,
                 const TextOptions &options) {
  if (!options.showSource || where.file.empty())
    return;
  std::optional<std::string> line = lines.get(where.file, where.line);
  if (!line)
    return;
  out << *line << '\n';
  std::string caret;
  for (unsigned i = 0; i + 1 < where.column && i < line->size(); ++i)
    caret += (*line)[i] == '\t' ? '\t' : ' ';
  if (options.color)
    out.changeColor(llvm::raw_ostream::GREEN, true);
  out << caret << "^\n";
  if (options.color)
    out.resetColor();
}

llvm::raw_ostream::Colors colorOf(const std::string &severity) {
  if (severity == "error")
    return llvm::raw_ostream::RED;
  if (severity == "warning")
    return llvm::raw_ostream::MAGENTA;
  return llvm::raw_ostream::BLACK;
}

} // namespace

void writeText(const RunResult &result, const TextOptions &options, llvm::raw_ostream &out) {
  Lines lines;
  for (const Finding &f : result.findings) {
    if (options.color)
      out.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
    writeLocation(out, f.where, options);
    if (options.color)
      out.changeColor(colorOf(f.severity), true);
    out << f.severity << ": ";
    if (options.color)
      out.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
    out << f.message << " [" << f.rule << "]";
    if (options.color)
      out.resetColor();
    out << '\n';
    writeSource(out, lines, f.where, options);
    for (const Note &n : f.notes) {
      writeLocation(out, n.where, options);
      out << "note: " << n.message << '\n';
      writeSource(out, lines, n.where, options);
    }
  }
}

void writeJson(const RunResult &result, llvm::raw_ostream &out) {
  llvm::json::OStream json(out, 2);
  auto point = [&](const SourcePoint &p) {
    json.attribute("file", p.file);
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
          json.attribute("message", f.message);
          json.attributeArray("notes", [&] {
            for (const Note &n : f.notes)
              json.object([&] {
                point(n.where);
                json.attribute("message", n.message);
              });
          });
          json.attributeArray("fixes", [&] {
            for (const Edit &e : f.fixes)
              json.object([&] {
                json.attribute("file", e.file);
                json.attribute("offset", static_cast<int64_t>(e.offset));
                json.attribute("length", static_cast<int64_t>(e.length));
                json.attribute("text", e.text);
              });
          });
        });
    });
    json.attributeObject("summary", [&] {
      json.attribute("files", static_cast<int64_t>(result.files.size()));
      json.attribute("findings", static_cast<int64_t>(result.findings.size()));
      json.attribute("parse_errors", static_cast<int64_t>(countParseErrors(result)));
    });
    json.attributeArray("unparsed", [&] {
      for (const FileOutcome &file : result.files)
        if (!file.parsed)
          json.object([&] {
            json.attribute("file", file.file);
            json.attributeArray("errors", [&] {
              for (const std::string &e : file.errors)
                json.value(e);
            });
          });
    });
  });
  out << '\n';
}

} // namespace afunix::check
