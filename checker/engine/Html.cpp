// The HTML report. A finding is a path (the socket made in one file, listen() in another, the late
// option in a callback): each step is numbered in a list and again at its line in the excerpts of
// every file the path crosses, so the page reads like scan-build's without any script.
#include "Html.h"

#include "Output.h"
#include "Printable.h"
#include "SafeFiles.h"
#include "Sarif.h"
#include "SourceCache.h"

#include "afunix/RuleCatalog.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include <sys/stat.h>

namespace afunix::check {

std::string escapeHtml(llvm::StringRef text) {
  std::string shown = printable(text);
  std::string out;
  out.reserve(shown.size());
  for (char c : shown) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

namespace {

// Severity is shown as a word too (colour is never the only signal) and the bubbles carry numbers.
constexpr llvm::StringLiteral kStyle = R"css(
:root { color-scheme: light; --error: #a40000; --warning: #8a5300; --note: #1f4f8a; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 1rem 1.5rem;
       color: #1b1b1b; background: #fff; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #ccc; padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .src td { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
.sev { display: inline-block; padding: 0 .4rem; border-radius: .2rem; color: #fff; font-weight: 600; }
.sev-error { background: var(--error); } .sev-warning { background: var(--warning); }
.sev-note { background: var(--note); }
.badge { display: inline-block; padding: 0 .4rem; border: 1px solid #555; border-radius: .2rem;
         font-size: .85rem; margin-left: .3rem; }
.finding { border: 1px solid #bbb; border-radius: .3rem; padding: .2rem 1rem 1rem; margin: 1.5rem 0;
           break-inside: avoid-page; }
.src { border: 1px solid #ccc; width: 100%; }
.src td { border: none; padding: 0 .5rem; white-space: pre-wrap; tab-size: 8; }
.src td.ln { color: #555; text-align: right; width: 4rem; user-select: none; }
.src tr.at td { background: #fff4c2; } .src tr.main td { background: #ffe0e0; }
.src tr.gap td { color: #777; }
.src tr.stepnote td { white-space: normal; font-family: system-ui, sans-serif; padding: .15rem .5rem; }
.bubble { display: inline-block; min-width: 1.4rem; text-align: center; border-radius: .7rem;
          background: #1f4f8a; color: #fff; font-weight: 700; margin-right: .4rem; }
.bubble.main { background: var(--error); }
.diff { border: 1px solid #ccc; padding: .3rem .5rem; white-space: pre-wrap; }
.diff .del { background: #ffe0e0; } .diff .add { background: #d8f5d8; } .diff .hunk { color: #555; }
.file { margin: .8rem 0 .2rem; font-weight: 600; }
nav ol { margin: 0; }
@media print { body { max-width: none; font-size: 11pt; } a { color: inherit; }
  .finding { border-color: #000; } }
)css";

std::string attribute(llvm::StringRef text) { return escapeHtml(text); }

std::string severityBadge(llvm::StringRef severity) {
  std::string sev = severity == "error" || severity == "warning" ? severity.str() : "note";
  return "<span class=\"sev sev-" + sev + "\">" + escapeHtml(severity) + "</span>";
}

// What afunix-probe's evidence says about a finding (the afunix/runtime property), in words.
std::string runtimeBadge(const Finding &finding) {
  for (const Finding::Property &p : finding.properties) {
    if (p.name != "afunix/runtime")
      continue;
    static const std::map<std::string, std::string> kWords = {
        {"confirmed", "confirmed at run time"},
        {"runtime-only", "run-time only"},
        {"reached-clean", "reached at run time, not seen"},
        {"not-exercised", "not reached at run time"},
        {"not-seen", "not seen at run time"}};
    auto it = kWords.find(p.text);
    return "<span class=\"badge\">" + escapeHtml(it != kWords.end() ? it->second : p.text) + "</span>";
  }
  return "";
}

struct Step {
  SourcePoint where;
  std::string message;
  bool isFinding = false;
};

// The path: the notes that have a place, in the order the check gave them, then the finding.
std::vector<Step> stepsOf(const Finding &finding) {
  std::vector<Step> steps;
  for (const Note &note : finding.notes)
    if (!note.where.file.empty() && note.where.line > 0)
      steps.push_back({note.where, note.message, false});
  steps.push_back({finding.where, finding.message, true});
  return steps;
}

class Writer {
public:
  Writer(const RunResult &result, const HtmlOptions &options) : result_(result), options_(options) {}

  std::string shown(const std::string &file) { return escapeHtml(relativePath(file, options_.root)); }

  std::string ruleLink(llvm::StringRef ruleId) {
    std::string url = options_.docsBaseUrl.empty() ? "" : options_.docsBaseUrl + "/rules/" + ruleId.str() + ".md";
    return url;
  }

  // `findingsOnOwnPages`: the list links finding-N.html (--html-dir), else #finding-N.
  void summary(std::string &out, bool findingsOnOwnPages) {
    out += "<h1>afunix-check report</h1>\n<p>";
    out += llvm::formatv("{0} finding{1}", result_.findings.size(), result_.findings.size() == 1 ? "" : "s").str();
    std::string severities = describeSeverities(result_);
    if (!severities.empty())
      out += " (" + escapeHtml(severities) + ")";
    out += llvm::formatv(" in {0} file{1} checked", result_.files.size(), result_.files.size() == 1 ? "" : "s").str();
    if (!options_.toolVersion.empty())
      out += "; afunix-check " + escapeHtml(options_.toolVersion);
    out += ".</p>\n";
    warnings(out);
    if (result_.findings.empty())
      return;

    out += "<h2 id=\"by-rule\">By rule</h2>\n<table><thead><tr><th scope=\"col\">rule</th>"
           "<th scope=\"col\">what it finds</th><th scope=\"col\">severity</th>"
           "<th scope=\"col\">findings</th></tr></thead><tbody>\n";
    std::map<std::string, std::map<std::string, unsigned>> byRule; // rule -> severity -> count
    for (const Finding &f : result_.findings)
      ++byRule[f.rule][f.severity];
    for (const auto &[rule, severities] : byRule) {
      const auto *entry = afunix::catalog::findRule(rule);
      unsigned total = 0;
      std::string sev;
      for (const auto &[s, n] : severities) {
        total += n;
        sev += severityBadge(s) + llvm::formatv(" {0} ", n).str();
      }
      out += "<tr><td><a href=\"#rule-" + attribute(rule) + "\"><code>" + escapeHtml(rule) +
             "</code></a></td><td>" + escapeHtml(entry ? entry->title : "") + "</td><td>" + sev +
             "</td><td class=\"num\">" + std::to_string(total) + "</td></tr>\n";
    }
    out += "</tbody></table>\n";

    out += "<h2 id=\"by-file\">By file</h2>\n<table><thead><tr><th scope=\"col\">file</th>"
           "<th scope=\"col\">errors</th><th scope=\"col\">warnings</th><th scope=\"col\">notes</th>"
           "</tr></thead><tbody>\n";
    std::map<std::string, std::map<std::string, unsigned>> byFile;
    for (const Finding &f : result_.findings)
      ++byFile[f.where.file][f.severity];
    for (auto &[file, counts] : byFile)
      out += "<tr><td><code>" + shown(file) + "</code></td><td class=\"num\">" +
             std::to_string(counts["error"]) + "</td><td class=\"num\">" +
             std::to_string(counts["warning"]) + "</td><td class=\"num\">" +
             std::to_string(counts["note"]) + "</td></tr>\n";
    out += "</tbody></table>\n";

    out += "<h2 id=\"findings-list\">Findings</h2>\n<ol class=\"findings-list\">\n";
    for (std::size_t i = 0; i < result_.findings.size(); ++i) {
      const Finding &f = result_.findings[i];
      std::string target = !findingsOnOwnPages ? "#finding-" + std::to_string(i + 1)
                                               : llvm::formatv("finding-{0}.html", i + 1).str();
      out += "<li>" + severityBadge(f.severity) + " <a href=\"" + attribute(target) + "\"><code>" +
             shown(f.where.file) + ":" + std::to_string(f.where.line) + "</code></a> " +
             escapeHtml(f.message) + " <code>[" + escapeHtml(f.rule) + "]</code>" +
             runtimeBadge(f) + "</li>\n";
    }
    out += "</ol>\n";
  }

  void warnings(std::string &out) {
    std::vector<std::string> lines;
    for (const FileOutcome &file : result_.files)
      if (!file.parsed)
        lines.push_back("<code>" + shown(file.file) + "</code> could not be parsed; its findings may be incomplete.");
    for (const FileOutcome &file : result_.context)
      if (!file.parsed)
        lines.push_back("<code>" + shown(file.file) + "</code> (another file of the program) could not be parsed.");
    for (const std::string &file : result_.staleFacts)
      lines.push_back("<code>" + shown(file) + "</code> was judged without its current facts.");
    for (const std::string &rule : result_.stoppedAtBound)
      lines.push_back("<code>" + escapeHtml(rule) + "</code> stopped at its work bound; its findings may be incomplete.");
    if (unsigned dropped = result_.dropped.total())
      lines.push_back(llvm::formatv("{0} finding{1} not shown (NOLINT, filters, baseline or configuration).",
                                    dropped, dropped == 1 ? "" : "s").str());
    if (lines.empty())
      return;
    out += "<ul class=\"warnings\">\n";
    for (const std::string &line : lines)
      out += "<li>" + line + "</li>\n";
    out += "</ul>\n";
  }

  // One source line as a table row; `cls` marks a step's line.
  void sourceRow(std::string &out, const std::string &file, unsigned line, llvm::StringRef cls) {
    out += "<tr";
    if (!cls.empty())
      out += " class=\"" + cls.str() + "\"";
    out += "><td class=\"ln\">" + std::to_string(line) + "</td><td>" +
           escapeHtml(sources_.line(file, line).rtrim("\r")) + "</td></tr>\n";
  }

  void finding(std::string &out, const Finding &f, std::size_t number, llvm::StringRef headingLevel) {
    std::string id = "finding-" + std::to_string(number);
    out += "<section class=\"finding\" id=\"" + id + "\" aria-labelledby=\"" + id + "-title\">\n";
    out += "<" + headingLevel.str() + " id=\"" + id + "-title\">" + std::to_string(number) + ". " +
           severityBadge(f.severity) + " " + escapeHtml(f.message) + " <code>[" + escapeHtml(f.rule) +
           "]</code>" + runtimeBadge(f) + "</" + headingLevel.str() + ">\n";
    out += "<p class=\"where\"><code>" + shown(f.where.file) + ":" + std::to_string(f.where.line) +
           ":" + std::to_string(f.where.column) + "</code></p>\n";
    if (const auto *rule = afunix::catalog::findRule(f.rule)) {
      out += "<p class=\"rule\"><strong>" + escapeHtml(rule->title) + ".</strong> " +
             escapeHtml(firstParagraph(rule->whatBreaks)) + " ";
      std::string url = ruleLink(f.rule);
      if (!url.empty())
        out += "<a href=\"" + attribute(url) + "\">The rule's page</a>.";
      else
        out += "<a href=\"" + rulesPage_ + "#rule-" + attribute(f.rule) + "\">More about this rule</a>.";
      out += "</p>\n";
    }

    std::vector<Step> steps = stepsOf(f);
    out += "<h4>Path</h4>\n<ol class=\"path\">\n";
    for (std::size_t i = 0; i < steps.size(); ++i)
      out += "<li><a href=\"#" + id + "-step-" + std::to_string(i + 1) + "\"><code>" +
             shown(steps[i].where.file) + ":" + std::to_string(steps[i].where.line) + "</code></a> " +
             escapeHtml(steps[i].message) + (steps[i].isFinding ? " (the finding)" : "") + "</li>\n";
    out += "</ol>\n";
    std::vector<std::string> unplaced;
    for (const Note &note : f.notes)
      if (note.where.file.empty() || note.where.line == 0)
        unplaced.push_back(note.message);
    if (!unplaced.empty()) {
      out += "<ul class=\"notes\">\n";
      for (const std::string &m : unplaced)
        out += "<li>" + escapeHtml(m) + "</li>\n";
      out += "</ul>\n";
    }
    excerpts(out, id, steps);
    if (!f.fixes.empty())
      fixDiff(out, f);
    out += "</section>\n";
  }

  // Every file the path crosses, in the order the path first enters it: the lines around each
  // step, with the step's number and words under its line.
  void excerpts(std::string &out, const std::string &id, const std::vector<Step> &steps) {
    std::vector<std::string> files;
    for (const Step &s : steps)
      if (std::find(files.begin(), files.end(), s.where.file) == files.end())
        files.push_back(s.where.file);
    for (const std::string &file : files) {
      out += "<p class=\"file\"><code>" + shown(file) + "</code></p>\n";
      if (!sources_.contents(file)) {
        out += "<p>(the source is not readable here)</p>\n";
        continue;
      }
      std::map<unsigned, std::vector<std::size_t>> stepsAtLine;
      for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].where.file == file)
          stepsAtLine[steps[i].where.line].push_back(i);
      // Windows around the steps, merged when they touch.
      std::vector<std::pair<unsigned, unsigned>> windows;
      unsigned lastLine = sources_.lineCount(file);
      for (const auto &[line, _] : stepsAtLine) {
        unsigned from = line > options_.contextLines ? line - options_.contextLines : 1;
        unsigned to = std::min(lastLine, line + options_.contextLines);
        if (!windows.empty() && from <= windows.back().second + 1)
          windows.back().second = std::max(windows.back().second, to);
        else
          windows.push_back({from, to});
      }
      out += "<table class=\"src\" aria-label=\"" + shown(file) + "\">\n";
      for (std::size_t w = 0; w < windows.size(); ++w) {
        if (w > 0)
          out += "<tr class=\"gap\"><td class=\"ln\">&#8942;</td><td></td></tr>\n";
        for (unsigned line = windows[w].first; line <= windows[w].second; ++line) {
          auto at = stepsAtLine.find(line);
          bool main = at != stepsAtLine.end() &&
                      std::any_of(at->second.begin(), at->second.end(), [&](std::size_t i) { return steps[i].isFinding; });
          sourceRow(out, file, line, at == stepsAtLine.end() ? "" : main ? "main" : "at");
          if (at == stepsAtLine.end())
            continue;
          for (std::size_t i : at->second)
            out += "<tr class=\"stepnote\" id=\"" + id + "-step-" + std::to_string(i + 1) +
                   "\"><td></td><td><span class=\"bubble" + (steps[i].isFinding ? " main" : "") +
                   "\" title=\"step " + std::to_string(i + 1) + "\">" + std::to_string(i + 1) +
                   "</span>" + (steps[i].isFinding ? "<strong>" : "") + escapeHtml(steps[i].message) +
                   (steps[i].isFinding ? "</strong>" : "") +
                   llvm::formatv(" <small>(line {0}, column {1})</small>", line, steps[i].where.column).str() +
                   "</td></tr>\n";
        }
      }
      out += "</table>\n";
    }
  }

  // The fix-it as a unified diff of each file it edits. Edits whose lines (with two of context)
  // touch form one hunk, so a hunk's sides are the file before and after all of the fix-it there.
  void fixDiff(std::string &out, const Finding &f) {
    out += "<h4>Fix-it" + (f.fixTitle.empty() ? std::string() : ": " + escapeHtml(f.fixTitle)) + "</h4>\n";
    std::map<std::string, std::vector<const Edit *>> byFile;
    std::vector<std::string> order;
    for (const Edit &e : f.fixes) {
      if (!byFile.count(e.file))
        order.push_back(e.file);
      byFile[e.file].push_back(&e);
    }
    constexpr unsigned kContext = 2;
    for (const std::string &file : order) {
      std::vector<const Edit *> &edits = byFile[file];
      std::sort(edits.begin(), edits.end(), [](const Edit *a, const Edit *b) { return a->offset < b->offset; });
      const std::string *text = sources_.contents(file);
      out += "<pre class=\"diff\" aria-label=\"changes to " + shown(file) + "\">";
      out += "<span class=\"hunk\">--- " + shown(file) + "\n+++ " + shown(file) + "</span>\n";
      if (!text) {
        out += "(the source is not readable here)</pre>\n";
        continue;
      }
      unsigned lines = sources_.lineCount(file);
      auto lineOf = [&](std::size_t offset) {
        return sources_.locate(file, static_cast<unsigned>(std::min(offset, text->size()))).line;
      };
      // Hunks: [first line, last line] with context, and the edits in them.
      struct Hunk {
        unsigned from, to;
        std::vector<const Edit *> edits;
      };
      std::vector<Hunk> hunks;
      for (const Edit *e : edits) {
        unsigned first = lineOf(e->offset), last = lineOf(e->offset + e->length);
        unsigned from = first > kContext ? first - kContext : 1, to = std::min(std::max(lines, 1u), last + kContext);
        if (!hunks.empty() && from <= hunks.back().to + 1) {
          hunks.back().to = std::max(hunks.back().to, to);
          hunks.back().edits.push_back(e);
        } else {
          hunks.push_back({from, to, {e}});
        }
      }
      long delta = 0; // lines the earlier hunks added
      for (const Hunk &h : hunks) {
        std::size_t begin = static_cast<std::size_t>(sources_.lineStart(file, h.from));
        long next = sources_.lineStart(file, h.to + 1);
        std::size_t end = next < 0 ? text->size() : static_cast<std::size_t>(next);
        std::string before = text->substr(begin, end - begin), after = before;
        for (auto it = h.edits.rbegin(); it != h.edits.rend(); ++it) {
          std::size_t at = std::min<std::size_t>((*it)->offset, end) - begin;
          after.replace(at, std::min<std::size_t>((*it)->length, after.size() - at), (*it)->text);
        }
        auto split = [](llvm::StringRef s) {
          llvm::SmallVector<llvm::StringRef> parts;
          if (s.ends_with("\n"))
            s = s.drop_back();
          s.split(parts, '\n');
          return parts;
        };
        auto oldLines = split(before), newLines = split(after);
        // The lines both sides share at the ends are context; the rest changed.
        std::size_t head = 0, tail = 0;
        while (head < oldLines.size() && head < newLines.size() && oldLines[head] == newLines[head])
          ++head;
        while (tail + head < oldLines.size() && tail + head < newLines.size() &&
               oldLines[oldLines.size() - 1 - tail] == newLines[newLines.size() - 1 - tail])
          ++tail;
        out += "<span class=\"hunk\">" +
               llvm::formatv("@@ -{0},{1} +{2},{3} @@", h.from, oldLines.size(), h.from + delta, newLines.size()).str() +
               "</span>\n";
        for (std::size_t i = 0; i < head; ++i)
          out += " " + escapeHtml(oldLines[i]) + "\n";
        for (std::size_t i = head; i + tail < oldLines.size(); ++i)
          out += "<span class=\"del\">-" + escapeHtml(oldLines[i]) + "</span>\n";
        for (std::size_t i = head; i + tail < newLines.size(); ++i)
          out += "<span class=\"add\">+" + escapeHtml(newLines[i]) + "</span>\n";
        for (std::size_t i = oldLines.size() - tail; i < oldLines.size(); ++i)
          out += " " + escapeHtml(oldLines[i]) + "\n";
        delta += static_cast<long>(newLines.size()) - static_cast<long>(oldLines.size());
      }
      out += "</pre>\n";
    }
  }

  void rules(std::string &out) {
    std::set<std::string> met;
    for (const Finding &f : result_.findings)
      met.insert(f.rule);
    if (met.empty())
      return;
    out += "<h2 id=\"rules\">The rules</h2>\n";
    for (const std::string &id : met) {
      out += "<section class=\"rule\" id=\"rule-" + attribute(id) + "\">\n<h3><code>" + escapeHtml(id) +
             "</code></h3>\n";
      const auto *rule = afunix::catalog::findRule(id);
      if (!rule) {
        out += "<p>(not in this build's rule catalog)</p>\n</section>\n";
        continue;
      }
      out += "<p><strong>" + escapeHtml(rule->title) + ".</strong></p>\n";
      paragraphs(out, unwrap(rule->whatBreaks));
      out += "<p><strong>Fix:</strong></p>\n";
      paragraphs(out, unwrap(rule->fix));
      std::string url = ruleLink(id);
      if (!url.empty())
        out += "<p><a href=\"" + attribute(url) + "\">The rule's page</a></p>\n";
      llvm::StringRef page = embeddedRulePage(id);
      if (!page.empty())
        out += "<details><summary>The rule's page, as installed with this afunix-check</summary>"
               "<pre>" + escapeHtml(page) + "</pre></details>\n";
      out += "</section>\n";
    }
  }

  std::string firstParagraph(llvm::StringRef text) {
    std::string all = unwrap(text);
    return all.substr(0, all.find("\n\n"));
  }

  void paragraphs(std::string &out, llvm::StringRef text) {
    llvm::SmallVector<llvm::StringRef> parts;
    text.split(parts, "\n\n", -1, false);
    for (llvm::StringRef p : parts)
      out += "<p>" + escapeHtml(p.trim()) + "</p>\n";
  }

  const RunResult &result_;
  const HtmlOptions &options_;
  SourceCache sources_;
  std::string rulesPage_; // the page holding the rules section: "" (this one) or "index.html"
};

} // namespace

std::string htmlPageStart(llvm::StringRef title, llvm::StringRef extraStyle) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; img-src data:\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         escapeHtml(title) + "</title>\n<style>" + kStyle.str() + extraStyle.str() +
         "</style>\n</head>\n<body>\n<main>\n";
}

std::string htmlPageEnd() { return "</main>\n</body>\n</html>\n"; }

std::string renderHtml(const RunResult &result, const HtmlOptions &options) {
  Writer writer(result, options);
  std::string out = htmlPageStart("afunix-check report");
  writer.summary(out, /*findingsOnOwnPages=*/false);
  if (!result.findings.empty())
    out += "<h2 id=\"details\">Each finding</h2>\n";
  for (std::size_t i = 0; i < result.findings.size(); ++i)
    writer.finding(out, result.findings[i], i + 1, "h3");
  writer.rules(out);
  out += htmlPageEnd();
  return out;
}

std::vector<HtmlPage> renderHtmlPages(const RunResult &result, const HtmlOptions &options) {
  Writer writer(result, options);
  writer.rulesPage_ = "index.html";
  std::vector<HtmlPage> pages;
  std::string index = htmlPageStart("afunix-check report");
  writer.summary(index, /*findingsOnOwnPages=*/true);
  writer.rules(index);
  index += htmlPageEnd();
  pages.push_back({"index.html", std::move(index)});
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    const Finding &f = result.findings[i];
    std::string page = htmlPageStart(llvm::formatv("afunix-check: {0} [{1}]", f.message, f.rule).str());
    page += "<p><a href=\"index.html\">All findings</a></p>\n";
    writer.finding(page, f, i + 1, "h1");
    page += htmlPageEnd();
    pages.push_back({llvm::formatv("finding-{0}.html", i + 1).str(), std::move(page)});
  }
  return pages;
}

namespace {

// index.html or finding-<digits>.html: the names a report directory may hold.
bool isReportPage(llvm::StringRef name) {
  if (name == "index.html")
    return true;
  if (!name.consume_front("finding-") || !name.consume_back(".html") || name.empty())
    return false;
  return llvm::all_of(name, llvm::isDigit);
}

// The report pages now in `dir` (regular files only), or false with `error` when it holds
// anything else.
bool reportPagesIn(const std::string &dir, std::vector<std::string> &pages, std::string &error) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    struct stat st;
    if (lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !isReportPage(name)) {
      error = "refusing to write the HTML report into '" + dir + "': it holds '" + name +
              "', which is not a page of an earlier report (give a new or empty directory)";
      return false;
    }
    pages.push_back(name);
  }
  if (ec) {
    error = "cannot read '" + dir + "': " + ec.message();
    return false;
  }
  return true;
}

} // namespace

bool checkReportDir(const std::string &dir, std::string &error) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    llvm::SmallString<256> parent(dir);
    llvm::sys::path::remove_filename(parent);
    if (parent.empty())
      parent = ".";
    if (errno == ENOENT && llvm::sys::fs::is_directory(parent))
      return true;
    error = "cannot write the HTML report into '" + dir + "': " +
            (errno == ENOENT ? std::string("its parent directory does not exist") : std::strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    error = "refusing to write the HTML report into '" + dir + "': it is not a directory" +
            (S_ISLNK(st.st_mode) ? " (a symlink is never followed)" : "");
    return false;
  }
  std::vector<std::string> pages;
  return reportPagesIn(dir, pages, error);
}

bool writeReportDir(const std::string &dir, const std::vector<HtmlPage> &pages, std::string &error) {
  if (!checkReportDir(dir, error))
    return false;
  if (std::error_code ec = llvm::sys::fs::create_directory(dir, /*IgnoreExisting=*/true)) {
    error = "cannot make '" + dir + "': " + ec.message();
    return false;
  }
  std::vector<std::string> earlier;
  if (!reportPagesIn(dir, earlier, error))
    return false;
  std::set<std::string> written;
  for (const HtmlPage &page : pages) {
    std::string path = (llvm::Twine(dir) + "/" + page.name).str();
    if (!writeFileReplacing(path, page.html, "HTML report page", error))
      return false;
    written.insert(page.name);
  }
  for (const std::string &name : earlier)
    if (!written.count(name))
      llvm::sys::fs::remove((llvm::Twine(dir) + "/" + name).str());
  return true;
}

} // namespace afunix::check
