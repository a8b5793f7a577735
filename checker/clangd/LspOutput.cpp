#include "LspOutput.h"

#include "ClangTidyCheck.h"
#include "ClangTidyDiagnosticConsumer.h"
#include "ClangTidyModule.h"
#include "ClangTidyModuleRegistry.h"

#include "InputFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <set>
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

std::string rewriteMessage(const std::string &body, const std::string &docsBase,
                           const std::function<void(const std::string &path)> &published) {
  bool links = llvm::StringRef(body).contains("clang-tidy/checks/afunix/");
  bool diagnostics = llvm::StringRef(body).contains("textDocument/publishDiagnostics");
  if (!links && !diagnostics)
    return body;
  std::string why; // a body that is not JSON (or nested past the one limit) passes as it is
  std::optional<json::Value> parsed = afunix::analysis::parseJson(body, why);
  if (!parsed)
    return body;
  json::Object *message = parsed->getAsObject();
  if (!message)
    return body;
  if (diagnostics && message->getString("method") == "textDocument/publishDiagnostics")
    if (const json::Object *params = message->getObject("params"))
      if (std::optional<llvm::StringRef> uri = params->getString("uri"))
        published(uriToPath(*uri));
  if (!links)
    return body;
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
        std::string target = ruleHref(docsBase, code->str());
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
  return llvm::formatv("{0}", *parsed).str();
}

OutputRelay::OutputRelay(std::string docsBase,
                         std::function<void(const std::string &path)> published)
    : docsBase_(std::move(docsBase)), published_(std::move(published)) {}

bool OutputRelay::start() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return false;
  realStdout_ = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (realStdout_ < 0 || dup2(fds[1], STDOUT_FILENO) < 0) {
    close(fds[0]);
    close(fds[1]);
    if (realStdout_ >= 0)
      close(realStdout_);
    realStdout_ = -1;
    return false;
  }
  close(fds[1]);
  pipeRead_ = fds[0];
  thread_ = std::thread([this] { run(); });
  return true;
}

void OutputRelay::finish() {
  if (realStdout_ < 0)
    return;
  fflush(stdout);
  // The only write end of the pipe is fd 1: closing it ends the relay once it drained the pipe.
  close(STDOUT_FILENO);
  thread_.join();
  close(pipeRead_);
  dup2(realStdout_, STDOUT_FILENO);
  close(realStdout_);
  realStdout_ = -1;
}

void OutputRelay::run() {
  std::string buffer;
  bool passThrough = false; // not LSP framing (clangd printing something else): relay as is
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = read(pipeRead_, chunk, sizeof chunk);
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
      std::string out = rewriteMessage(body, docsBase_, published_);
      writeAll(realStdout_, "Content-Length: " + std::to_string(out.size()) + "\r\n" +
                                otherHeaders + "\r\n" + out);
    }
    if (passThrough && !buffer.empty()) {
      writeAll(realStdout_, buffer);
      buffer.clear();
    }
  }
  if (!buffer.empty())
    writeAll(realStdout_, buffer);
}

} // namespace afunix::clangd
