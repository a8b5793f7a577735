#include "ServiceFiles.h"

#include "Digest.h"
#include "InputFiles.h"

#include "afunix/KernelConstants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <optional>

namespace afunix::analysis {

namespace {

using facts::Id;
using facts::kNone;

// One logical line: a line and the lines its trailing backslashes join to it.
struct Line {
  std::uint32_t offset = 0; // of its first character
  std::uint32_t number = 0; // 1-based
  std::string text;         // joined, without the backslashes and the newline
  std::uint32_t end = 0;    // offset just past its last physical line (past the '\n' if any)
};

std::vector<Line> logicalLines(llvm::StringRef content) {
  std::vector<Line> lines;
  std::uint32_t offset = 0, number = 1;
  bool joining = false;
  while (offset < content.size()) {
    std::size_t newline = content.find('\n', offset);
    std::uint32_t stop = newline == llvm::StringRef::npos ? content.size() : newline;
    std::uint32_t next = newline == llvm::StringRef::npos ? content.size() : newline + 1;
    llvm::StringRef physical = content.slice(offset, stop);
    if (physical.ends_with("\r"))
      physical = physical.drop_back();
    bool continues = physical.ends_with("\\");
    if (continues)
      physical = physical.drop_back();
    if (!joining)
      lines.push_back({offset, number, "", 0});
    else
      lines.back().text += ' ';
    lines.back().text += physical.str();
    lines.back().end = next;
    joining = continues;
    offset = next;
    ++number;
  }
  return lines;
}

std::optional<bool> parseBoolean(llvm::StringRef value) {
  std::string v = value.trim().lower();
  if (v == "1" || v == "yes" || v == "y" || v == "true" || v == "t" || v == "on")
    return true;
  if (v == "0" || v == "no" || v == "n" || v == "false" || v == "f" || v == "off")
    return false;
  return std::nullopt; // a template's @VALUE@, or a typo systemd would reject
}

// A name without the ".in" of a template.
std::string installedName(llvm::StringRef path) {
  llvm::StringRef name = llvm::sys::path::filename(path);
  if (name.ends_with(".in"))
    name = name.drop_back(3);
  return name.str();
}

// The program a command line starts: the base name of its first word. A template's
// "@bindir@/foo" is "foo"; systemd's prefixes (-, @, :, +, !) are not part of it.
std::string programOf(llvm::StringRef command) {
  command = command.trim();
  bool templated = command.size() > 1 && command[0] == '@' &&
                   command.find('@', 1) != llvm::StringRef::npos &&
                   llvm::all_of(command.slice(1, command.find('@', 1)),
                                [](char c) { return llvm::isAlnum(c) || c == '_'; });
  if (!templated)
    command = command.ltrim("-@:+!|");
  llvm::StringRef word = command.split(' ').first.split('\t').first;
  return llvm::sys::path::filename(word).str();
}

class Builder {
public:
  explicit Builder(facts::Unit &unit) : U(unit) {}

  Id file(const std::string &path, llvm::StringRef content) {
    U.files.push_back(path);
    U.digests.push_back(contentDigest(content));
    return static_cast<Id>(U.files.size() - 1);
  }
  // A site at `offset` on line `line` (1-based) whose line starts at `lineStart`.
  Id site(Id file, std::uint32_t lineStart, std::uint32_t line, std::uint32_t offset,
          llvm::StringRef text) {
    facts::Site s;
    s.file = file;
    s.offset = offset;
    s.line = line;
    s.column = offset - lineStart + 1;
    s.length = static_cast<std::uint32_t>(text.size());
    s.text = text.str();
    U.sites.push_back(std::move(s));
    return static_cast<Id>(U.sites.size() - 1);
  }

  facts::Unit &U;
};

// A regular file only: a FIFO or a device named like a unit is never opened for reading.
bool readFile(const std::string &path, std::string &content, std::string &error) {
  std::string why;
  if (!readInputFile(path, kMaxSourceBytes, content, why)) {
    error = "cannot read " + why;
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// systemd unit files

struct Setting {
  Id file = kNone;
  const Line *line = nullptr;
  std::string key, value;
  std::uint32_t valueOffset = 0; // where the value starts in the file
};

// The settings of `section` in a unit file, in order. Keys and values are trimmed; comments
// (# and ; at the start of a line) and other sections are skipped.
std::vector<Setting> sectionSettings(const std::vector<Line> &lines, Id file, llvm::StringRef section) {
  std::vector<Setting> out;
  bool inside = false;
  for (const Line &line : lines) {
    llvm::StringRef text = line.text;
    llvm::StringRef trimmed = text.trim();
    if (trimmed.empty() || trimmed.starts_with("#") || trimmed.starts_with(";"))
      continue;
    if (trimmed.starts_with("[")) {
      inside = trimmed == ("[" + section + "]").str();
      continue;
    }
    if (!inside)
      continue;
    auto [key, rest] = text.split('=');
    if (rest.data() == nullptr || key.size() == text.size())
      continue;
    Setting s;
    s.file = file;
    s.line = &line;
    s.key = key.trim().str();
    llvm::StringRef value = rest.ltrim(" \t");
    s.valueOffset = line.offset + static_cast<std::uint32_t>(value.data() - text.data());
    s.value = value.rtrim(" \t").str();
    out.push_back(std::move(s));
  }
  return out;
}

struct Listen {
  std::string kind; // ListenStream, ...
  Setting setting;
};

// What a Listen*= line makes: family and type, or nullopt for an fd that is not a socket (a FIFO,
// a special file, a message queue, a USB function).
std::optional<std::pair<facts::Family, int>> socketOf(const Listen &listen) {
  llvm::StringRef value = listen.setting.value;
  int type = listen.kind == "ListenStream"             ? kernel::kSockStream
             : listen.kind == "ListenDatagram"         ? kernel::kSockDgram
             : listen.kind == "ListenSequentialPacket" ? kernel::kSockSeqpacket
             : listen.kind == "ListenNetlink"          ? kernel::kSockRaw
                                                       : -1;
  if (type < 0)
    return std::nullopt;
  if (listen.kind == "ListenNetlink")
    return std::pair(facts::Family::Netlink, type);
  // A path (also "%t/foo" and a template's "@rundir@/foo") or an abstract name ("@foo").
  if (value.starts_with("/") || value.starts_with("@") || (value.starts_with("%") && value.contains('/')))
    return std::pair(facts::Family::Unix, type);
  if (value.starts_with("vsock:"))
    return std::pair(facts::Family::Other, type);
  // A port ("8080": systemd listens on [::] and, dual-stack, on IPv4 too), "[::1]:80", "1.2.3.4:80".
  if (!value.empty() && llvm::all_of(value, llvm::isDigit))
    return std::pair(facts::Family::Inet6, type);
  if (value.starts_with("["))
    return std::pair(facts::Family::Inet6, type);
  if (value.contains(':'))
    return std::pair(facts::Family::Inet, type);
  return std::pair(facts::Family::Unknown, type);
}

std::vector<std::string> servicePrograms(const std::string &socketPath, const std::string &service) {
  llvm::SmallString<256> dir(socketPath);
  llvm::sys::path::remove_filename(dir);
  std::vector<std::string> programs;
  for (const std::string &candidate : {service, service + ".in"}) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, candidate);
    std::string content, error;
    if (!llvm::sys::fs::is_regular_file(path) || !readFile(std::string(path), content, error))
      continue;
    std::vector<Line> lines = logicalLines(content);
    for (const Setting &s : sectionSettings(lines, kNone, "Service"))
      if (s.key == "ExecStart" && !s.value.empty()) {
        std::string program = programOf(s.value);
        if (!program.empty() && !llvm::is_contained(programs, program))
          programs.push_back(program);
      }
    break;
  }
  return programs;
}

bool readSocketUnit(const std::string &path, facts::Unit &out, std::string &error) {
  struct Source {
    std::string path, content;
    std::vector<Line> lines;
    Id file = kNone;
  };
  std::vector<Source> sources(1);
  sources[0].path = path;
  if (!readFile(path, sources[0].content, error))
    return false;
  std::string unitName = installedName(path);
  // Drop-ins beside the unit (foo.socket.d/*.conf) apply after it, in name order.
  llvm::SmallString<256> dropins(path);
  if (llvm::StringRef(path).ends_with(".in"))
    dropins.resize(dropins.size() - 3);
  dropins += ".d";
  std::vector<std::string> confs;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dropins, ec), end; !ec && it != end; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".conf"))
      confs.push_back(it->path());
  std::sort(confs.begin(), confs.end());
  for (const std::string &conf : confs) {
    Source source;
    source.path = conf;
    std::string ignored;
    if (readFile(conf, source.content, ignored))
      sources.push_back(std::move(source));
  }

  Builder b(out);
  out.mainFile = path;
  std::vector<Listen> listens;
  std::optional<Setting> passcred; // the last PassCredentials= line: what a fix-it rewrites
  // What systemd makes of the PassCredentials= lines: the last it can parse (an empty one resets
  // it to the default, no); a value it cannot parse ("maybe") is ignored with a warning, so the
  // value before it stands. A template's @VALUE@ is not known until the unit is configured.
  facts::Tri enabled = facts::Tri::False;
  bool accept = false;
  std::string fdName = unitName, service;
  for (Source &source : sources) {
    source.lines = logicalLines(source.content);
    source.file = b.file(source.path, source.content);
    for (Setting &s : sectionSettings(source.lines, source.file, "Socket")) {
      if (llvm::StringRef(s.key).starts_with("Listen")) {
        if (s.value.empty())
          listens.clear(); // an empty assignment resets the list
        else
          listens.push_back({s.key, s});
      } else if (s.key == "PassCredentials") {
        passcred = s;
        if (s.value.empty())
          enabled = facts::Tri::False;
        else if (std::optional<bool> value = parseBoolean(s.value))
          enabled = *value ? facts::Tri::True : facts::Tri::False;
        else if (llvm::StringRef(s.value).contains('@') || llvm::StringRef(s.value).contains('$'))
          enabled = facts::Tri::Maybe;
      } else if (s.key == "Accept") {
        accept = parseBoolean(s.value).value_or(false);
      } else if (s.key == "FileDescriptorName" && !s.value.empty()) {
        fdName = s.value;
      } else if (s.key == "Service" && !s.value.empty()) {
        service = s.value;
      }
    }
  }
  if (listens.empty())
    return true;
  if (service.empty()) {
    llvm::StringRef stem = llvm::StringRef(unitName).drop_back(std::string(".socket").size());
    service = (stem + (accept ? "@.service" : ".service")).str();
  }
  std::vector<std::string> programs = servicePrograms(path, service);

  auto siteOf = [&](const Setting &s, std::uint32_t offset, llvm::StringRef text) {
    return b.site(s.file, s.line->offset, s.line->number, offset, text);
  };
  Id passcredSite = kNone, enableAt = kNone, removeAt = kNone;
  std::uint32_t enableLength = 0, removeLength = 0;
  std::string enableText;
  if (passcred) {
    passcredSite = siteOf(*passcred, passcred->valueOffset, passcred->value);
    // Rewrite the value in place: PassCredentials=no becomes PassCredentials=yes.
    enableAt = passcredSite;
    enableLength = static_cast<std::uint32_t>(passcred->value.size());
    enableText = "yes";
    removeAt = siteOf(*passcred, passcred->line->offset, "");
    removeLength = passcred->line->end - passcred->line->offset;
  } else {
    // A new line after the last Listen*= line (a file without a final newline gets one first).
    const Setting &last = listens.back().setting;
    const Source &source = *llvm::find_if(sources, [&](const Source &s) { return s.file == last.file; });
    bool newline = last.line->end > 0 && source.content[last.line->end - 1] == '\n';
    enableAt = b.site(last.file, last.line->end, last.line->number + (newline ? 1 : 0), last.line->end, "");
    if (!newline)
      out.sites[enableAt].column = last.line->end - last.line->offset + 1;
    // The file's own line ending: a unit written with CRLF gets a CRLF line.
    const char *eol = llvm::StringRef(source.content).contains("\r\n") ? "\r\n" : "\n";
    enableText = std::string(newline ? "" : eol) + "PassCredentials=yes" + eol;
  }
  for (std::size_t i = 0; i < listens.size(); ++i) {
    std::optional<std::pair<facts::Family, int>> kind = socketOf(listens[i]);
    if (!kind)
      continue; // an fd, but not a socket: it still takes its place in the numbering
    const Setting &s = listens[i].setting;
    facts::ServiceSocket socket;
    socket.manager = facts::Manager::Systemd;
    socket.site = siteOf(s, s.valueOffset, s.value);
    socket.unit = unitName;
    socket.name = fdName;
    socket.index = static_cast<int>(i);
    socket.address = s.value;
    socket.family = kind->first;
    socket.type = kind->second;
    socket.passcred = enabled;
    socket.passcredSite = passcredSite;
    socket.accept = accept;
    socket.programs = programs;
    socket.enableAt = enableAt;
    socket.enableLength = enableLength;
    socket.enableText = enableText;
    socket.removeAt = removeAt;
    socket.removeLength = removeLength;
    out.services.push_back(std::move(socket));
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Android init .rc files

struct Token {
  std::string text;     // the word init reads: quotes removed, escapes resolved
  llvm::StringRef raw;  // as written
  std::uint32_t offset; // of `raw` in the file
};

// Words as init's tokenizer (system/core/init/tokenizer.cpp) splits them: blanks separate words,
// double quotes group text with blanks into one word (and may start inside a word: a"b c" is
// `ab c`), a backslash escapes the next character.
std::vector<Token> tokens(const Line &line) {
  std::vector<Token> out;
  llvm::StringRef text = line.text;
  std::size_t at = 0;
  while (at < text.size()) {
    at = text.find_first_not_of(" \t", at);
    if (at == llvm::StringRef::npos)
      break;
    Token token;
    std::size_t end = at;
    bool quoted = false;
    for (; end < text.size(); ++end) {
      char c = text[end];
      if (c == '\\' && end + 1 < text.size()) {
        char e = text[++end];
        token.text += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && (c == ' ' || c == '\t')) {
        break;
      } else {
        token.text += c;
      }
    }
    token.raw = text.slice(at, end);
    token.offset = line.offset + static_cast<std::uint32_t>(at);
    out.push_back(std::move(token));
    at = end;
  }
  return out;
}

bool readInitRc(const std::string &path, facts::Unit &out, std::string &error) {
  std::string content;
  if (!readFile(path, content, error))
    return false;
  Builder b(out);
  out.mainFile = path;
  Id file = b.file(path, content);
  std::vector<Line> lines = logicalLines(content);
  std::string service, program;
  for (const Line &line : lines) {
    std::vector<Token> words = tokens(line);
    if (words.empty() || words[0].raw.starts_with("#"))
      continue;
    llvm::StringRef keyword = words[0].text;
    // `service NAME PATH [ARGS]` opens a service; `on` and `import` end it.
    if (keyword == "service") {
      service = words.size() >= 3 ? words[1].text : "";
      program = words.size() >= 3 ? llvm::sys::path::filename(words[2].text).str() : "";
      continue;
    }
    if (keyword == "on" || keyword == "import") {
      service.clear();
      continue;
    }
    // `socket NAME TYPE[+passcred][+listen] PERM [USER [GROUP [SECLABEL]]]`
    if (keyword != "socket" || service.empty() || words.size() < 4)
      continue;
    llvm::SmallVector<llvm::StringRef, 3> parts;
    llvm::StringRef(words[2].text).split(parts, '+');
    int type = parts[0] == "stream"      ? kernel::kSockStream
               : parts[0] == "dgram"     ? kernel::kSockDgram
               : parts[0] == "seqpacket" ? kernel::kSockSeqpacket
                                         : -1;
    if (type < 0)
      continue;
    bool passcred = llvm::is_contained(llvm::ArrayRef(parts).drop_front(), "passcred");
    auto siteAt = [&](const Token &t, llvm::StringRef text) {
      return b.site(file, line.offset, line.number, t.offset, text);
    };
    facts::ServiceSocket socket;
    socket.manager = facts::Manager::AndroidInit;
    socket.site = siteAt(words[1], words[1].raw);
    socket.unit = "service " + service;
    socket.name = words[1].text;
    socket.address = "/dev/socket/" + socket.name;
    socket.family = facts::Family::Unix;
    socket.type = type;
    socket.passcred = passcred ? facts::Tri::True : facts::Tri::False;
    socket.passcredSite = siteAt(words[2], words[2].raw);
    if (!program.empty())
      socket.programs.push_back(program);
    // +passcred goes at the end of the type: "dgram" becomes "dgram+passcred" (inside the
    // quotes of a quoted type: "dgram" becomes "dgram+passcred").
    std::size_t typeLength = words[2].raw.size() - (words[2].raw.ends_with("\"") ? 1 : 0);
    Token typeEnd{"", "", words[2].offset + static_cast<std::uint32_t>(typeLength)};
    socket.enableAt = siteAt(typeEnd, "");
    socket.enableText = "+passcred";
    out.services.push_back(std::move(socket));
  }
  return true;
}

} // namespace

bool isServiceFileName(const std::string &path) {
  llvm::StringRef name = llvm::sys::path::filename(path);
  return name.ends_with(".socket") || name.ends_with(".socket.in") || name.ends_with(".rc");
}

bool readServiceFile(const std::string &path, facts::Unit &out, std::string &error) {
  out = facts::Unit();
  if (llvm::StringRef(path).ends_with(".rc"))
    return readInitRc(path, out, error);
  return readSocketUnit(path, out, error);
}

} // namespace afunix::analysis
