// What afunix-clangd changes in what clangd sends to the editor, and what it watches there.
//
// clangd links every clang-tidy diagnostic to clang.llvm.org/extra/clang-tidy/checks/<module>/
// <check>.html (Diagnostics.cpp, getDiagnosticDocURI(), compiled into libclangDaemon.a with a
// direct call that no symbol can replace). For afunix-fd-flood that is .../checks/afunix/fd-flood
// .html, a page that does not exist. afunix-clangd therefore sits between clangd's LSP output and
// the editor: it rewrites those links to the rule's own page, and it notices files whose
// diagnostics arrive although no afunix check ran on them (the checks are not enabled, or
// FastCheckFilter skipped them) and logs why.
#pragma once

#include <functional>
#include <string>
#include <thread>

namespace afunix::clangd {

// The href for an afunix rule's diagnostic: `docsBase` + "/rules/<rule>.md"; "" = drop the link.
std::string ruleHref(const std::string &docsBase, const std::string &rule);

// Rewrites one LSP message body: every codeDescription.href clangd made for an afunix-* rule
// points at the rule's page under `docsBase` (or is removed when `docsBase` is empty). Calls
// `published(path)` for each textDocument/publishDiagnostics. Returns the body unchanged when
// there is nothing to do (and whenever it is not JSON).
std::string rewriteMessage(const std::string &body, const std::string &docsBase,
                           const std::function<void(const std::string &path)> &published);

// Takes over fd 1 (stdout) with a pipe before clangd starts and relays LSP frames from it to the
// real stdout, each through rewriteMessage(); anything that is not an LSP frame passes as is.
class OutputRelay {
public:
  OutputRelay(std::string docsBase, std::function<void(const std::string &path)> published);
  // Starts relaying; false (and stdout untouched) if the pipe or thread cannot be had.
  bool start();
  // Flushes what clangd wrote, closes the pipe and waits until everything reached stdout.
  void finish();

private:
  void run();
  std::string docsBase_;
  std::function<void(const std::string &)> published_;
  int realStdout_ = -1, pipeRead_ = -1;
  std::thread thread_;
};

// Records that afunix checks were created for a file (called from clangd's worker threads).
void noteChecksRan(const std::string &file);
// Whether noteChecksRan() was called for `file` since start.
bool checksRan(const std::string &file);

// Wraps the factories of every registered afunix-* check so that creating one for a file is
// recorded (noteChecksRan). Must be called in main(), before clangd builds its first AST.
void watchAfunixChecks();

} // namespace afunix::clangd
