// afunix-probe's HTML reports (`run --html FILE`, `kernel --compare ... --html FILE`): one
// self-contained page each, through afunix-check's page scaffold and escaper (checker/engine
// Html.h), with the charts as inline SVG: each has a title and a description, and its numbers are
// in a table beside it, so a screen reader, a printout and a colour-blind reader get them too.
#include "ProbeHtml.h"

#include "RunMerge.h"

#include "afunix/KernelConstants.h"

#ifdef AFUNIX_PROBE_HAVE_SARIF
#include "Html.h"
#include "SafeFiles.h"
#include "SourceCache.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

namespace afunix::probe {

#ifdef AFUNIX_PROBE_HAVE_SARIF
using check::escapeHtml;

namespace {

constexpr const char *kProbeStyle = R"css(
svg { display: block; max-width: 100%; height: auto; border: 1px solid #ccc; background: #fff; }
svg text { font: 11px system-ui, sans-serif; fill: #1b1b1b; }
svg .bar { fill: #1f4f8a; } svg .old { fill: #8a8a8a; } svg .line { fill: none; stroke: #1f4f8a; stroke-width: 2; }
svg .threshold { stroke: #a40000; stroke-width: 1.5; stroke-dasharray: 6 4; } svg .axis { stroke: #555; }
.stack { margin: .2rem 0; } .stack li { font-family: ui-monospace, monospace; font-size: 13px; }
ul.tree, ul.tree ul { list-style: none; padding-left: 1.2rem; } ul.tree li::before { content: "\2514 "; color: #777; }
)css";

std::string str(uint64_t v) { return std::to_string(v); }

// 1234 ns -> "1.2 µs": the histogram's and the GC chart's labels.
std::string durationText(double ns) {
  const char *unit = "ns";
  for (const char *next : {"µs", "ms", "s"}) {
    if (ns < 1000)
      break;
    ns /= 1000;
    unit = next;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, ns < 10 ? "%.1f %s" : "%.0f %s", ns, unit);
  return buf;
}

// bcc funclatency's log2 buckets: bucket b holds [2^(b-1), 2^b) ns, bucket 0 the calls under 1 ns.
double bucketLow(int b) { return b == 0 ? 0.0 : std::ldexp(1.0, b - 1); }
double bucketHigh(int b) { return std::ldexp(1.0, b); }

// The latency histogram of one call class: a bar per log2 bucket, then the same numbers as a
// table.
std::string histogramSvg(const std::string &what, const std::vector<uint64_t> &buckets, uint64_t calls) {
  int first = -1, last = -1;
  uint64_t most = 0;
  for (int b = 0; b < static_cast<int>(buckets.size()); ++b)
    if (buckets[b]) {
      first = first < 0 ? b : first;
      last = b;
      most = std::max(most, buckets[b]);
    }
  if (first < 0)
    return "<p>" + escapeHtml(what) + ": no call was timed.</p>\n";
  int peak = first;
  for (int b = first; b <= last; ++b)
    if (buckets[b] == most)
      peak = b;
  const int width = 640, height = 200, left = 50, bottom = 40, top = 10;
  int n = last - first + 1;
  double barWidth = static_cast<double>(width - left - 10) / n;
  std::string desc = what + ": " + str(calls) + " calls timed; most took " + durationText(bucketLow(peak)) +
                     " to " + durationText(bucketHigh(peak)) + " (" + str(most) + ")";
  std::string out = "<figure>\n<svg viewBox=\"0 0 " + str(width) + " " + str(height) +
                    "\" role=\"img\" aria-labelledby=\"h-" + escapeHtml(what) + "\">"
                    "<title id=\"h-" + escapeHtml(what) + "\">" + escapeHtml(desc) + "</title>\n";
  out += "<line class=\"axis\" x1=\"" + str(left) + "\" y1=\"" + str(height - bottom) + "\" x2=\"" + str(width - 5) +
         "\" y2=\"" + str(height - bottom) + "\"/>\n";
  out += "<text x=\"4\" y=\"" + str(top + 10) + "\">" + str(most) + "</text>\n";
  for (int b = first; b <= last; ++b) {
    double h = most ? static_cast<double>(buckets[b]) / most * (height - bottom - top) : 0;
    double x = left + (b - first) * barWidth;
    char rect[256];
    std::snprintf(rect, sizeof rect, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
                  x + 1, height - bottom - h, std::max(1.0, barWidth - 2), h);
    out += rect;
    out += "<title>" + escapeHtml(durationText(bucketLow(b)) + " to " + durationText(bucketHigh(b)) +
                                  ": " + str(buckets[b])) +
           "</title></rect>\n";
    if ((b - first) % std::max(1, n / 8) == 0) {
      char label[128];
      std::snprintf(label, sizeof label, "<text x=\"%.1f\" y=\"%d\">", x + 1, height - bottom + 14);
      out += label + escapeHtml(durationText(bucketLow(b))) + "</text>\n";
    }
  }
  out += "<text x=\"" + str(left) + "\" y=\"" + str(height - 6) + "\">latency (log2 buckets)</text>\n</svg>\n";
  out += "<figcaption>" + escapeHtml(desc) + "</figcaption>\n</figure>\n";
  out += "<details><summary>The numbers</summary><table><thead><tr><th scope=\"col\">from</th>"
         "<th scope=\"col\">to</th><th scope=\"col\">calls</th></tr></thead><tbody>\n";
  for (int b = first; b <= last; ++b)
    out += "<tr><td class=\"num\">" + escapeHtml(durationText(bucketLow(b))) + "</td><td class=\"num\">" +
           escapeHtml(durationText(bucketHigh(b))) + "</td><td class=\"num\">" + str(buckets[b]) +
           "</td></tr>\n";
  out += "</tbody></table></details>\n";
  return out;
}

// Fds in flight over time for one process, a step line, with the 2024 fds at which Linux 6.8+
// makes fd-carrying sendmsg() wait for the unix GC drawn across.
std::string inFlightSvg(const ProcessReport &p) {
  const InFlightSeries &series = *p.inFlight;
  int64_t peak = 0, current = 0;
  std::vector<std::pair<double, int64_t>> points; // (seconds, most in that period)
  for (std::size_t i = 0; i < series.most.size(); ++i) {
    if (series.most[i] >= 0)
      current = series.most[i];
    points.push_back({static_cast<double>(i) * series.periodNs / 1e9, current});
    peak = std::max(peak, current);
  }
  const int64_t threshold = kernel::kUnixInflightSaneUser;
  const int width = 640, height = 220, left = 50, bottom = 34, top = 12, right = 10;
  double yMax = static_cast<double>(std::max<int64_t>(peak, threshold)) * 1.1;
  double xMax = std::max(series.most.size(), std::size_t{1}) * series.periodNs / 1e9;
  auto X = [&](double s) { return left + s / xMax * (width - left - right); };
  auto Y = [&](double v) { return height - bottom - v / yMax * (height - bottom - top); };
  std::string id = "inflight-" + str(p.pid);
  std::string desc = "pid " + str(p.pid) + ": at most " + str(peak) + " fds in flight" +
                     (peak >= threshold ? ", past the " + str(threshold) + " at which fd-carrying sends wait for the GC"
                                        : ", below the " + str(threshold) + " at which fd-carrying sends wait for the GC") +
                     ", over " + durationText(xMax * 1e9) + " (the most of each " +
                     durationText(static_cast<double>(series.periodNs)) + ")";
  std::string out = "<figure>\n<svg viewBox=\"0 0 " + str(width) + " " + str(height) + "\" role=\"img\" aria-labelledby=\"" +
                    id + "\"><title id=\"" + id + "\">" + escapeHtml(desc) + "</title>\n";
  char buf[256];
  std::string path = "M";
  double lastY = Y(0);
  for (std::size_t i = 0; i < points.size(); ++i) {
    double y = Y(static_cast<double>(points[i].second));
    std::snprintf(buf, sizeof buf, "%s%.1f,%.1f L%.1f,%.1f ", i ? "L" : "", X(points[i].first), i ? lastY : y,
                  X(points[i].first), y);
    path += buf;
    lastY = y;
  }
  std::snprintf(buf, sizeof buf, "L%.1f,%.1f", X(xMax), lastY);
  path += buf;
  out += "<path class=\"line\" d=\"" + path + "\"/>\n";
  std::snprintf(buf, sizeof buf, "<line class=\"threshold\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", left,
                Y(threshold), width - right, Y(threshold));
  out += buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%.1f\">", left + 4, Y(threshold) - 4);
  out += buf + escapeHtml(str(threshold) + ": fd-carrying sendmsg() waits for the unix GC (Linux 6.8+, 6.6.93+, 6.1.141+)") +
         "</text>\n";
  out += "<line class=\"axis\" x1=\"" + str(left) + "\" y1=\"" + str(height - bottom) + "\" x2=\"" + str(width - right) +
         "\" y2=\"" + str(height - bottom) + "\"/>\n";
  std::snprintf(buf, sizeof buf, "<text x=\"4\" y=\"%.1f\">%lld</text>", Y(static_cast<double>(peak)) + 4,
                static_cast<long long>(peak));
  out += buf;
  out += "<text x=\"" + str(left) + "\" y=\"" + str(height - 8) + "\">0</text><text x=\"" + str(width - 90) + "\" y=\"" +
         str(height - 8) + "\">" + escapeHtml(durationText(xMax * 1e9)) + "</text>\n</svg>\n";
  out += "<figcaption>" + escapeHtml(desc) + "</figcaption>\n</figure>\n";
  return out;
}

std::string framesList(const std::vector<StackFrame> &frames, const std::string &relativeTo) {
  std::string out = "<ol class=\"stack\">\n";
  for (const StackFrame &f : frames)
    out += "<li>" + escapeHtml(frameText(f, relativeTo)) + "</li>\n";
  return out + "</ol>\n";
}

// The lines around a finding's call, when its source is readable here.
std::string excerpt(check::SourceCache &sources, const SourceLocation &at, const std::string &relativeTo) {
  if (!sources.contents(at.file) || at.line == 0)
    return "";
  unsigned from = at.line > 2 ? at.line - 2 : 1, to = std::min(sources.lineCount(at.file), at.line + 2);
  std::string out = "<table class=\"src\" aria-label=\"" + escapeHtml(displayPath(at.file, relativeTo)) + "\">\n";
  for (unsigned l = from; l <= to; ++l)
    out += std::string("<tr") + (l == at.line ? " class=\"main\"" : "") + "><td class=\"ln\">" + str(l) + "</td><td>" +
           escapeHtml(sources.line(at.file, l)) + "</td></tr>\n";
  return out + "</table>\n";
}

void processTree(std::string &out, const RunSummary &s) {
  std::map<int, std::vector<const ProcessReport *>> children;
  std::map<int, bool> known;
  for (const ProcessReport &p : s.processes)
    known[p.pid] = true;
  std::vector<const ProcessReport *> roots;
  for (const ProcessReport &p : s.processes)
    (known.count(p.ppid) && p.ppid != p.pid ? children[p.ppid] : roots).push_back(&p);
  std::map<int, int> findingsOf;
  for (const FindingGroup &g : s.findings)
    for (int pid : g.pids)
      ++findingsOf[pid];
  std::function<void(const ProcessReport *)> item = [&](const ProcessReport *p) {
    out += "<li><code>" + str(p->pid) + "</code> " + escapeHtml(p->exe.empty() ? p->argv0 : p->exe) +
           " <small>(" + escapeHtml(p->reason) + ", " + str(findingsOf[p->pid]) + " finding group" +
           (findingsOf[p->pid] == 1 ? "" : "s") + ")</small>";
    auto it = children.find(p->pid);
    if (it != children.end()) {
      out += "\n<ul>\n";
      for (const ProcessReport *c : it->second)
        item(c);
      out += "</ul>\n";
    }
    out += "</li>\n";
  };
  out += "<ul class=\"tree\">\n";
  for (const ProcessReport *r : roots)
    item(r);
  out += "</ul>\n";
}

} // namespace

bool htmlAvailable() { return true; }

bool renderSummaryHtml(const RunSummary &s, std::string &out, std::string &error) {
  (void)error;
  check::SourceCache sources;
  std::string command;
  for (const std::string &a : s.command)
    command += (command.empty() ? "" : " ") + a;
  out = check::htmlPageStart("afunix-probe run: " + command, kProbeStyle);
  out += "<h1>afunix-probe run</h1>\n<p><code>" + escapeHtml(command) + "</code> " + "exit status " + std::to_string(s.exitStatus) +
         "; " + str(s.processes.size()) + " process" + (s.processes.size() == 1 ? "" : "es") + " reported, " +
         str(s.findings.size()) + " finding group" + (s.findings.size() == 1 ? "" : "s") + " (" + str(s.occurrences()) +
         " occurrences).</p>\n";
  if (!s.missing.empty()) {
    out += "<ul class=\"warnings\">\n";
    for (const MissingProcess &m : s.missing)
      out += "<li>pid " + str(m.pid) + " " + escapeHtml(m.exe) + " (" + escapeHtml(m.status) + "): " + escapeHtml(m.what) +
             "</li>\n";
    out += "</ul>\n";
  }

  out += "<h2 id=\"findings\">Findings</h2>\n";
  if (s.findings.empty())
    out += "<p>None: no AF_UNIX behaviour change was seen to matter in this run.</p>\n";
  for (std::size_t i = 0; i < s.findings.size(); ++i) {
    const FindingGroup &g = s.findings[i];
    std::string id = "finding-" + str(i + 1);
    std::string sev = g.severity == "error" || g.severity == "warning" ? g.severity : "note";
    out += "<section class=\"finding\" id=\"" + id + "\">\n<h3>" + str(i + 1) + ". <span class=\"sev sev-" + sev + "\">" +
           escapeHtml(g.severity) + "</span> <code>" + escapeHtml(g.rule) + "</code> " +
           (g.location ? "<code>" + escapeHtml(displayPath(g.location->file, s.relativeTo) + ":" + str(g.location->line)) +
                             "</code> " + escapeHtml(g.location->function)
                       : "<code>" + escapeHtml(g.site) + "</code>") +
           "</h3>\n<p>" + escapeHtml(g.message) + "</p>\n";
    std::string pids;
    for (int pid : g.pids)
      pids += (pids.empty() ? "" : ", ") + str(pid);
    std::string programs;
    for (const std::string &p : g.programs)
      programs += (programs.empty() ? "" : ", ") + p;
    out += "<p>" + str(g.count) + " occurrence" + (g.count == 1 ? "" : "s") + " in pid " + escapeHtml(pids) + " (" +
           escapeHtml(programs) + ")</p>\n";
    if (g.location)
      out += excerpt(sources, *g.location, s.relativeTo);
    if (g.socket)
      out += "<p><strong>Socket:</strong> " + escapeHtml(socketText(*g.socket, g.origin, s.relativeTo)) + "</p>\n";
    if (!g.evidenceText.empty())
      out += "<p><strong>Evidence:</strong> " + escapeHtml(g.evidenceText) + "</p>\n";
    out += "<h4>Stack</h4>\n" + framesList(g.stack, s.relativeTo);
    if (!g.origin.empty())
      out += "<h4>Where the socket was " + std::string(g.socket && g.socket->originHow && *g.socket->originHow == "received"
                                                           ? "received"
                                                           : "created") +
             "</h4>\n" + framesList(g.origin, s.relativeTo);
    out += "</section>\n";
  }

  out += "<h2 id=\"latency\">Call latency</h2>\n";
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<uint64_t>, uint64_t>> histograms;
  for (const ProcessReport &p : s.processes)
    for (const ReportHistogram &h : p.histograms) {
      auto &[buckets, calls] = histograms[{h.call, h.cls}];
      buckets.resize(std::max(buckets.size(), h.buckets.size()));
      for (std::size_t b = 0; b < h.buckets.size(); ++b)
        buckets[b] += h.buckets[b];
      calls += h.count;
    }
  if (histograms.empty())
    out += "<p>No call was timed (AFUNIX_PROBE_TIMING=1 times a sample of the calls).</p>\n";
  for (const auto &[key, value] : histograms) {
    std::string what = key.first + "() carrying " + (key.second == "none" ? std::string("nothing") : key.second);
    out += "<h3>" + escapeHtml(what) + "</h3>\n" + histogramSvg(what, value.first, value.second);
  }

  out += "<h2 id=\"in-flight\">Fds in flight over time</h2>\n";
  bool any = false;
  for (const ProcessReport &p : s.processes)
    if (p.inFlight && !p.inFlight->most.empty()) {
      any = true;
      out += "<h3>pid " + str(p.pid) + " " + escapeHtml(p.exe) + "</h3>\n" + inFlightSvg(p);
    }
  if (!any)
    out += "<p>No process sent fds.</p>\n";

  out += "<h2 id=\"processes\">Processes</h2>\n";
  processTree(out, s);
  out += check::htmlPageEnd();
  return true;
}

bool writeHtmlFile(const std::string &path, const std::string &html, bool checkOnly, std::string &error) {
  if (checkOnly)
    return check::checkOutputPath(path, "HTML report", error);
  return check::writeFileReplacing(path, html, "HTML report", error);
}

// ---- kernel --compare --html -----------------------------------------------------------------

std::string kernelCompareHtml(const KernelComparison &c) {
  std::string out = check::htmlPageStart("afunix-probe kernel --compare: Linux " + c.oldRelease + " to Linux " +
                                         c.newRelease, kProbeStyle);
  out += "<h1>Linux " + escapeHtml(c.oldRelease) + " to Linux " + escapeHtml(c.newRelease) + "</h1>\n<p>" +
         escapeHtml(c.oldFile) + " &rarr; " + escapeHtml(c.newFile) + ". " +
         (c.breaking.empty() ? "No behaviour change that breaks programs."
                             : str(c.breaking.size()) + " behaviour change" + (c.breaking.size() == 1 ? "" : "s") +
                                   " that break programs.") +
         " " + str(static_cast<uint64_t>(c.unchanged)) + " keys unchanged.</p>\n";
  auto table = [&](const char *heading, const std::vector<KernelChange> &list, bool meaning) {
    if (list.empty())
      return;
    out += std::string("<h2>") + heading + " (" + str(list.size()) + ")</h2>\n<table><thead><tr><th scope=\"col\">key</th>"
           "<th scope=\"col\">old</th><th scope=\"col\">new</th>" +
           (meaning ? "<th scope=\"col\">what it means</th><th scope=\"col\">afunix-check rules</th>" : "") +
           "</tr></thead><tbody>\n";
    for (const KernelChange &k : list)
      out += "<tr><td><code>" + escapeHtml(k.key) + "</code></td><td>" + escapeHtml(k.from) + "</td><td>" +
             escapeHtml(k.to) + "</td>" +
             (meaning ? "<td>" + escapeHtml(k.what) + "</td><td>" + escapeHtml(k.rules) + "</td>" : "") + "</tr>\n";
    out += "</tbody></table>\n";
  };
  table("Behaviour changes that break programs", c.breaking, true);
  table("Other behaviour changes", c.harmless, true);
  table("Not compared (measured on one side only)", c.notCompared, false);
  if (!c.onlyOld.empty() || !c.onlyNew.empty()) {
    std::vector<KernelChange> only;
    for (const auto &[key, value] : c.onlyOld)
      only.push_back({key, value, "(absent)", "", ""});
    for (const auto &[key, value] : c.onlyNew)
      only.push_back({key, "(absent)", value, "", ""});
    table("In one report only", only, false);
  }

  // The GC measurements: each duration of both kernels, on a log scale (they span ns to s).
  std::vector<std::pair<std::string, std::pair<double, double>>> durations;
  for (const auto &[key, values] : c.durationsNs)
    if (values.first > 0 || values.second > 0) // measured on at least one side
      durations.push_back({key, values});
  out += "<h2 id=\"gc\">Unix garbage collector measurements</h2>\n";
  if (durations.empty()) {
    out += "<p>Neither report measured the GC (run without --quick).</p>\n";
  } else {
    double lo = 1e300, hi = 1;
    for (const auto &[k, v] : durations)
      for (double x : {v.first, v.second})
        if (x > 0) {
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
    double logLo = std::floor(std::log10(std::max(1.0, lo))), logHi = std::ceil(std::log10(hi)) + 0.01;
    const int width = 720, rowHeight = 34, left = 290, right = 120, top = 10;
    int height = top + static_cast<int>(durations.size()) * rowHeight + 24;
    auto X = [&](double ns) {
      return left + (std::log10(std::max(ns, 1.0)) - logLo) / (logHi - logLo) * (width - left - right);
    };
    out += "<figure>\n<svg viewBox=\"0 0 " + str(width) + " " + str(height) +
           "\" role=\"img\" aria-labelledby=\"gc-title\"><title id=\"gc-title\">" +
           escapeHtml("GC measurements, Linux " + c.oldRelease + " (grey, upper bar) and Linux " + c.newRelease +
                      " (blue, lower bar), log scale") +
           "</title>\n";
    char buf[320];
    for (std::size_t i = 0; i < durations.size(); ++i) {
      const auto &[key, v] = durations[i];
      int y = top + static_cast<int>(i) * rowHeight;
      out += "<text x=\"4\" y=\"" + str(y + 18) + "\">" + escapeHtml(key) + "</text>\n";
      for (int side = 0; side < 2; ++side) {
        double ns = side ? v.second : v.first;
        std::string label = (side ? "new " : "old ") + (ns > 0 ? durationText(ns) : std::string("not measured"));
        std::snprintf(buf, sizeof buf, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"12\"><title>",
                      side ? "bar" : "old", left, y + 2 + side * 14, ns > 0 ? X(ns) - left : 0.0);
        out += buf + escapeHtml(label) + "</title></rect>";
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%d\">", (ns > 0 ? X(ns) : left) + 4, y + 12 + side * 14);
        out += buf + escapeHtml(label) + "</text>\n";
      }
    }
    for (double e = logLo; e <= logHi; e += 1) {
      std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%d\">", X(std::pow(10, e)), height - 6);
      out += buf + escapeHtml(durationText(std::pow(10, e))) + "</text>\n";
    }
    out += "</svg>\n<figcaption>Each duration of both kernels (log scale); grey: old, blue: new, each bar labelled."
           "</figcaption>\n</figure>\n";
  }
  table("Measurements (they differ between any two runs, decide nothing alone)", c.measurements, false);
  if (!c.experimentNotes.empty()) {
    out += "<h2>Experiments that ran differently</h2>\n<ul>\n";
    for (const std::string &n : c.experimentNotes)
      out += "<li>" + escapeHtml(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out + check::htmlPageEnd();
}

#else // no afunix-check writer in this build (sanitizer builds)

bool htmlAvailable() { return false; }
bool renderSummaryHtml(const RunSummary &, std::string &, std::string &error) {
  error = "this afunix-probe was built without afunix-check's writers (a sanitizer build); no HTML report";
  return false;
}
bool writeHtmlFile(const std::string &, const std::string &, bool, std::string &error) {
  error = "this afunix-probe was built without afunix-check's writers (a sanitizer build); no HTML report";
  return false;
}
std::string kernelCompareHtml(const KernelComparison &) { return ""; }

#endif

} // namespace afunix::probe
