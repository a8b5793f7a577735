// What afunix-clangd changes in the conversation between the editor and clangd, and what it
// watches there.
//
// clangd links every clang-tidy diagnostic to clang.llvm.org/extra/clang-tidy/checks/<module>/
// <check>.html (Diagnostics.cpp, getDiagnosticDocURI(), compiled into libclangDaemon.a with a
// direct call that no symbol can replace). For afunix-fd-flood that is .../checks/afunix/fd-flood
// .html, a page that does not exist. afunix-clangd therefore sits between clangd and the editor,
// both ways: it rewrites those links to the rule's published page (or removes them), adds what
// the rule is to a hover over its finding, and tells the editor (window/showMessage) when a
// file's diagnostics arrive although no afunix check ran on it (the checks are not enabled, or
// FastCheckFilter skipped them), with the .clangd lines to add.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace afunix::clangd {

// The href for an afunix rule's diagnostic: `docsBase` + "/rules/<rule>.md"; "" = drop the link.
std::string ruleHref(const std::string &docsBase, const std::string &rule);

// What `rule` is, for a hover: its title, what breaks, the fix and its page; Markdown or plain.
std::string ruleExplanation(const std::string &rule, const std::string &docsBase, bool markdown);

// The .clangd lines that turn the afunix checks on, as one YAML flow mapping a user can paste.
extern const char *const kClangdConfigLine;

// One editor session, as the two relays see it.
class Session {
public:
  // `checksRan(path)`: whether afunix checks were made for that file (noteChecksRan()).
  Session(std::string docsBase, std::function<bool(const std::string &path)> checksRan);

  // Editor -> clangd: remembers hover requests and the client's hover formats. Passes the
  // message on unchanged.
  std::vector<std::string> fromEditor(const std::string &body);
  // clangd -> editor: afunix diagnostics' links rewritten, hovers over an afunix finding with the
  // rule added; after the first diagnostics of a source file no afunix check ran on, a
  // window/showMessage that says what to add.
  std::vector<std::string> fromClangd(const std::string &body);

  // Files whose diagnostics came although no afunix check ran on them (for the log), each once.
  std::function<void(const std::string &path)> onChecksDidNotRun;

private:
  struct Span {
    int startLine, startCharacter, endLine, endCharacter;
    std::string rule;
  };
  std::string docsBase_;
  std::function<bool(const std::string &)> checksRan_;
  std::mutex mutex_;
  std::map<std::string, std::vector<Span>> findings_; // by document URI
  std::map<std::string, std::pair<std::string, std::pair<int, int>>> hovers_; // request id -> uri, position
  bool markdown_ = false;
  bool toldEditor_ = false;
  std::set<std::string> reported_;
};

// Relays LSP frames from fd `from` to fd `to`, each through `transform` (which may return several
// messages, or the one unchanged); anything that is not an LSP frame passes as is.
void relayFrames(int from, int to, const std::function<std::vector<std::string>(const std::string &)> &transform);

// Puts a pipe between the real stdin and stdout and clangd, both ways, before clangd starts.
class Relays {
public:
  explicit Relays(Session &session) : session_(session) {}
  // False (and stdin/stdout untouched) if the pipes or threads cannot be had.
  bool start();
  // Flushes what clangd wrote and waits until it reached the editor.
  void finish();

private:
  Session &session_;
  int realStdout_ = -1, outRead_ = -1, realStdin_ = -1, inWrite_ = -1;
  std::thread output_, input_;
};

// Records that afunix checks were created for a file (called from clangd's worker threads).
void noteChecksRan(const std::string &file);
// Whether noteChecksRan() was called for `file` since start.
bool checksRan(const std::string &file);

// Wraps the factories of every registered afunix-* check so that creating one for a file is
// recorded (noteChecksRan). Must be called in main(), before clangd builds its first AST.
void watchAfunixChecks();

// Whether `path` names a C, C++ or Objective-C source or header (clangd also publishes
// diagnostics for its config files).
bool isSourceFile(const std::string &path);

} // namespace afunix::clangd
