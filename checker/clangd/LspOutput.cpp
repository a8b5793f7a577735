#include "LspOutput.h"

#include "ClangTidyCheck.h"
#include "ClangTidyDiagnosticConsumer.h"
#include "ClangTidyModule.h"
#include "ClangTidyModuleRegistry.h"

#include "InputFiles.h"
#include "afunix/RuleCatalog.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <tuple>
#include <unistd.h>

namespace afunix::clangd {

namespace json = llvm::json;

namespace {

// What clangd's getDiagnosticDocURI() builds for a check named "<module>-<check>".
constexpr llvm::StringLiteral kClangdTidyDocs = "https://clang.llvm.org/extra/clang-tidy/checks/";

std::string uriToPath(llvm::StringRef uri) {
  if (!uri.consume_front("file://"))
    return "";
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    unsigned value = 0;
    if (uri[i] == '%' && i + 2 < uri.size() && !uri.substr(i + 1, 2).getAsInteger(16, value)) {
      path += static_cast<char>(value);
      i += 2;
    } else {
      path += uri[i];
    }
  }
  return path;
}

bool writeAll(int fd, llvm::StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    bytes = bytes.drop_front(static_cast<size_t>(n));
  }
  return true;
}

std::mutex ranMutex;
std::set<std::string> &ranFiles() {
  static std::set<std::string> files;
  return files;
}

// Registered last (from main()), so the afunix module's factories exist when it runs: it puts a
// recording wrapper around each of them.
class WatchModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(clang::tidy::ClangTidyCheckFactories &factories) override {
    std::vector<std::pair<std::string, clang::tidy::ClangTidyCheckFactories::CheckFactory>> afunix;
    for (const auto &entry : factories)
      if (entry.getKey().starts_with("afunix-"))
        afunix.emplace_back(entry.getKey().str(), entry.getValue());
    for (auto &[name, factory] : afunix)
      factories.registerCheckFactory(
          name, [factory](llvm::StringRef check, clang::tidy::ClangTidyContext *context) {
            noteChecksRan(context->getCurrentFile().str());
            return factory(check, context);
          });
  }
};

} // namespace

void noteChecksRan(const std::string &file) {
  std::lock_guard<std::mutex> lock(ranMutex);
  ranFiles().insert(file);
}

bool checksRan(const std::string &file) {
  std::lock_guard<std::mutex> lock(ranMutex);
  return ranFiles().count(file) > 0;
}

void watchAfunixChecks() {
  static clang::tidy::ClangTidyModuleRegistry::Add<WatchModule> watch(
      "afunix-clangd-watch", "records which files the afunix checks ran on");
}

std::string ruleHref(const std::string &docsBase, const std::string &rule) {
  if (docsBase.empty())
    return "";
  return docsBase + "/rules/" + rule + ".md";
}

const char *const kClangdConfigLine =
    "Diagnostics: {ClangTidy: {Add: [afunix-*], FastCheckFilter: Loose}}";

namespace {

// The catalog's YAML block text, its 100-column wrapping undone (paragraph breaks stay).
std::string unwrapped(llvm::StringRef text) {
  text = text.trim();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    bool single = text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '\n' &&
                  (i == 0 || text[i - 1] != '\n');
    out += single ? ' ' : text[i];
  }
  return out;
}

} // namespace

std::string ruleExplanation(const std::string &rule, const std::string &docsBase, bool markdown) {
  const afunix::catalog::Rule *r = afunix::catalog::findRule(rule);
  if (!r)
    return "";
  std::string out = markdown ? "**" + rule + "**: " + r->title : rule + ": " + r->title;
  out += "\n\n" + unwrapped(r->whatBreaks);
  out += "\n\n" + std::string(markdown ? "**Fix:** " : "Fix: ") + unwrapped(r->fix);
  std::string href = ruleHref(docsBase, rule);
  if (!href.empty())
    out += markdown ? "\n\n[" + rule + "](" + href + ")" : "\n\n" + href;
  return out;
}

Session::Session(std::string docsBase, std::function<bool(const std::string &path)> checksRan)
    : docsBase_(std::move(docsBase)), checksRan_(std::move(checksRan)) {}

std::vector<std::string> Session::fromEditor(const std::string &body) {
  llvm::StringRef text(body);
  if (!text.contains("textDocument/hover") && !text.contains("\"initialize\""))
    return {body};
  std::string why; // a body that is not JSON (or nested past the one limit) passes as it is
  std::optional<json::Value> parsed = afunix::analysis::parseJson(body, why);
  if (!parsed)
    return {body};
  const json::Object *message = parsed->getAsObject();
  if (!message)
    return {body};
  std::optional<llvm::StringRef> method = message->getString("method");
  const json::Object *params = message->getObject("params");
  std::lock_guard<std::mutex> lock(mutex_);
  if (method == "initialize" && params) {
    // The client's hover formats, most preferred first.
    if (const json::Object *caps = params->getObject("capabilities"))
      if (const json::Object *doc = caps->getObject("textDocument"))
        if (const json::Object *hover = doc->getObject("hover"))
          if (const json::Array *formats = hover->getArray("contentFormat"))
            if (!formats->empty())
              markdown_ = (*formats)[0].getAsString() == std::optional<llvm::StringRef>("markdown");
  } else if (method == "textDocument/hover" && params && message->get("id")) {
    const json::Object *doc = params->getObject("textDocument");
    const json::Object *position = params->getObject("position");
    if (doc && position && doc->getString("uri"))
      hovers_[llvm::formatv("{0}", *message->get("id")).str()] = {
          doc->getString("uri")->str(),
          {int(position->getInteger("line").value_or(-1)),
           int(position->getInteger("character").value_or(-1))}};
  }
  return {body};
}

std::vector<std::string> Session::fromClangd(const std::string &body) {
  llvm::StringRef text(body);
  bool links = text.contains("clang-tidy/checks/afunix/");
  bool diagnostics = text.contains("textDocument/publishDiagnostics");
  bool response = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    response = !hovers_.empty() && !text.contains("\"method\"");
  }
  if (!links && !diagnostics && !response)
    return {body};
  std::string why; // a body that is not JSON (or nested past the one limit) passes as it is
  std::optional<json::Value> parsed = afunix::analysis::parseJson(body, why);
  if (!parsed)
    return {body};
  json::Object *message = parsed->getAsObject();
  if (!message)
    return {body};
  std::vector<std::string> after;
  bool changed = false;
  if (diagnostics && message->getString("method") == "textDocument/publishDiagnostics")
    if (const json::Object *params = message->getObject("params"))
      if (std::optional<llvm::StringRef> uri = params->getString("uri")) {
        std::vector<Span> spans;
        if (const json::Array *list = params->getArray("diagnostics"))
          for (const json::Value &d : *list) {
            const json::Object *diag = d.getAsObject();
            std::optional<llvm::StringRef> code = diag ? diag->getString("code") : std::nullopt;
            const json::Object *range = diag ? diag->getObject("range") : nullptr;
            if (!code || !code->starts_with("afunix-") || !range || !range->getObject("start") ||
                !range->getObject("end"))
              continue;
            const json::Object &start = *range->getObject("start"), &end = *range->getObject("end");
            spans.push_back({int(start.getInteger("line").value_or(0)),
                             int(start.getInteger("character").value_or(0)),
                             int(end.getInteger("line").value_or(0)),
                             int(end.getInteger("character").value_or(0)), code->str()});
          }
        std::string path = uriToPath(*uri);
        std::lock_guard<std::mutex> lock(mutex_);
        findings_[uri->str()] = std::move(spans);
        if (isSourceFile(path) && !checksRan_(path) && reported_.insert(path).second) {
          if (onChecksDidNotRun)
            onChecksDidNotRun(path);
          if (!toldEditor_) {
            toldEditor_ = true;
            std::string words =
                "afunix-clangd: no afunix check ran on " + llvm::sys::path::filename(path).str() +
                ". clangd runs them only when the project's .clangd turns them on: add " +
                kClangdConfigLine + " (see guide-editors.md).";
            after.push_back(llvm::formatv("{0}", json::Value(json::Object{
                                                     {"jsonrpc", "2.0"},
                                                     {"method", "window/showMessage"},
                                                     {"params", json::Object{{"type", 2}, {"message", words}}}}))
                                .str());
          }
        }
      }
  if (response && message->get("id") && !message->get("method")) {
    std::string id = llvm::formatv("{0}", *message->get("id")).str();
    std::string uri;
    std::pair<int, int> at;
    std::vector<std::string> rules;
    bool markdown = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = hovers_.find(id);
      if (it != hovers_.end()) {
        std::tie(uri, at) = it->second;
        hovers_.erase(it);
        markdown = markdown_;
        for (const Span &s : findings_[uri]) {
          std::pair<int, int> start{s.startLine, s.startCharacter}, end{s.endLine, s.endCharacter};
          bool inside = start <= at && at <= end;
          if (inside && !llvm::is_contained(rules, s.rule))
            rules.push_back(s.rule);
        }
      }
    }
    if (!rules.empty()) {
      json::Value *result = message->get("result");
      json::Object *hover = result ? result->getAsObject() : nullptr;
      json::Object *contents = hover ? hover->getObject("contents") : nullptr;
      if (contents && contents->getString("kind"))
        markdown = contents->getString("kind") == "markdown";
      std::string added;
      for (const std::string &rule : rules)
        added += (added.empty() ? "" : markdown ? "\n\n---\n\n" : "\n\n") +
                 ruleExplanation(rule, docsBase_, markdown);
      if (contents && contents->getString("value")) {
        (*contents)["value"] = contents->getString("value")->str() +
                               (markdown ? "\n\n---\n\n" : "\n\n") + added;
      } else {
        (*message)["result"] = json::Object{
            {"contents", json::Object{{"kind", markdown ? "markdown" : "plaintext"}, {"value", added}}}};
      }
      changed = true;
    }
  }
  if (links) {
    // Wherever diagnostics are (publishDiagnostics, or echoed in a codeAction reply), fix them.
    std::function<void(json::Value &)> visit = [&](json::Value &value) {
      if (json::Array *array = value.getAsArray()) {
        for (json::Value &item : *array)
          visit(item);
        return;
      }
      json::Object *object = value.getAsObject();
      if (!object)
        return;
      std::optional<llvm::StringRef> code = object->getString("code");
      json::Object *description = object->getObject("codeDescription");
      if (code && code->starts_with("afunix-") && description) {
        std::optional<llvm::StringRef> href = description->getString("href");
        if (href && href->starts_with(kClangdTidyDocs)) {
          std::string target = ruleHref(docsBase_, code->str());
          if (target.empty())
            object->erase("codeDescription");
          else
            (*description)["href"] = target;
        }
      }
      for (auto &entry : *object)
        visit(entry.second);
    };
    visit(*parsed);
    changed = true;
  }
  std::vector<std::string> out{changed ? llvm::formatv("{0}", *parsed).str() : body};
  out.insert(out.end(), after.begin(), after.end());
  return out;
}

bool isSourceFile(const std::string &path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  for (const char *known : {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".h", ".hh", ".hpp",
                            ".hxx", ".h++", ".inl", ".ipp", ".m", ".mm"})
    if (ext == known)
      return true;
  return false;
}

void relayFrames(int from, int to,
                 const std::function<std::vector<std::string>(const std::string &)> &transform) {
  std::string buffer;
  bool passThrough = false; // not LSP framing: relay as is
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = read(from, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    buffer.append(chunk, static_cast<size_t>(n));
    while (!passThrough && !buffer.empty()) {
      llvm::StringRef view(buffer);
      llvm::StringRef start = view.take_front(8);
      if (!llvm::StringRef("content-").take_front(start.size()).equals_insensitive(start)) {
        passThrough = true;
        break;
      }
      size_t end = view.find("\r\n\r\n");
      if (end == llvm::StringRef::npos)
        break;
      size_t length = 0;
      bool haveLength = false;
      llvm::SmallVector<llvm::StringRef, 4> headers;
      view.take_front(end).split(headers, "\r\n");
      std::string otherHeaders;
      for (llvm::StringRef header : headers) {
        auto [name, value] = header.split(':');
        if (name.trim().equals_insensitive("content-length"))
          haveLength = !value.trim().getAsInteger(10, length);
        else
          otherHeaders += header.str() + "\r\n";
      }
      if (!haveLength) {
        passThrough = true;
        break;
      }
      if (buffer.size() < end + 4 + length)
        break;
      std::string body = buffer.substr(end + 4, length);
      buffer.erase(0, end + 4 + length);
      for (const std::string &out : transform(body))
        writeAll(to, "Content-Length: " + std::to_string(out.size()) + "\r\n" + otherHeaders +
                         "\r\n" + out);
    }
    if (passThrough && !buffer.empty()) {
      writeAll(to, buffer);
      buffer.clear();
    }
  }
  if (!buffer.empty())
    writeAll(to, buffer);
}

bool Relays::start() {
  int out[2], in[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    return false;
  if (pipe2(in, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return false;
  }
  realStdout_ = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  realStdin_ = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  if (realStdout_ < 0 || realStdin_ < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
      dup2(in[0], STDIN_FILENO) < 0) {
    for (int fd : {out[0], out[1], in[0], in[1], realStdout_, realStdin_})
      if (fd >= 0)
        close(fd);
    if (realStdout_ >= 0)
      dup2(realStdout_, STDOUT_FILENO);
    realStdout_ = realStdin_ = -1;
    return false;
  }
  close(out[1]);
  close(in[0]);
  outRead_ = out[0];
  inWrite_ = in[1];
  output_ = std::thread([this] {
    relayFrames(outRead_, realStdout_, [this](const std::string &b) { return session_.fromClangd(b); });
  });
  input_ = std::thread([this] {
    relayFrames(realStdin_, inWrite_, [this](const std::string &b) { return session_.fromEditor(b); });
    close(inWrite_); // the editor closed its end: clangd sees the end of its input
  });
  return true;
}

void Relays::finish() {
  if (realStdout_ < 0)
    return;
  fflush(stdout);
  // The only write end of the output pipe is fd 1: closing it ends that relay once drained.
  close(STDOUT_FILENO);
  output_.join();
  close(outRead_);
  dup2(realStdout_, STDOUT_FILENO);
  close(realStdout_);
  realStdout_ = -1;
  // The input relay may wait for an editor that keeps its end open after `exit`: it ends with
  // the process.
  input_.detach();
}

} // namespace afunix::clangd
