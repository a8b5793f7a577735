// HTML reports: afunix-check's findings with their paths drawn over the source (--format=html,
// --html-dir), and the page scaffold and escaper afunix-probe's reports use too. Every page is
// self-contained: inline CSS, no script, no fetch (a Content-Security-Policy of default-src
// 'none' says so to the browser), usable without JavaScript and printable.
#pragma once

#include "Finding.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace afunix::check {

// Text from a source file, a path, a message or evidence as HTML text or attribute value: control
// characters and invalid bytes as printable() shows them, then & < > " ' as entities. The one
// escaper of every HTML page the tools write.
std::string escapeHtml(llvm::StringRef text);

// "<!DOCTYPE html>...<body>" for a page titled `title`: the charset, the CSP, the shared style
// sheet (with a print style) plus `extraStyle`. `title` is escaped here.
std::string htmlPageStart(llvm::StringRef title, llvm::StringRef extraStyle = "");
std::string htmlPageEnd();

struct HtmlOptions {
  std::string root;         // paths are shown relative to it (--sarif-root, else the directory)
  std::string toolVersion;
  // The docs/ directory as a URL: each finding links its rule page. Empty: no links (each rule's
  // explanation is in the report itself).
  std::string docsBaseUrl;
  unsigned contextLines = 2; // source lines shown around each step of a path
};

struct HtmlPage {
  std::string name; // file name inside --html-dir: index.html, finding-N.html
  std::string html;
};

// The report as one page (--format=html): the summary by rule, severity and file, then each
// finding with its path over the source, runtime evidence badges and its fix-it as a diff, then
// the rules met.
std::string renderHtml(const RunResult &result, const HtmlOptions &options);

// The report for --html-dir: index.html with the summary and a list of the findings, and one page
// per finding (a large project's report opens without loading every excerpt at once).
std::vector<HtmlPage> renderHtmlPages(const RunResult &result, const HtmlOptions &options);

// Whether `dir` may hold a report: absent (its parent exists), or a directory (not a symlink)
// holding nothing but an earlier report's pages (index.html, finding-N.html). Checked before the
// analysis, so a bad --html-dir costs nothing.
bool checkReportDir(const std::string &dir, std::string &error);

// Writes `pages` into `dir` (made when absent) as output files are written (SafeFiles.h), then
// removes the finding pages of an earlier, longer report. False with `error` naming the file.
bool writeReportDir(const std::string &dir, const std::vector<HtmlPage> &pages, std::string &error);

} // namespace afunix::check
