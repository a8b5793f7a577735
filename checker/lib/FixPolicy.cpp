#include "FixPolicy.h"

#include "llvm/Support/Path.h"

#include <algorithm>
#include <tuple>

namespace afunix::rules {

using namespace analysis;

namespace {

// Two edits that cannot both be applied with one meaning: overlapping replaced ranges, an
// insertion strictly inside a replaced range, or two insertions at one offset (clang-tidy would
// apply both, in an order of its own, even when they are equal). Edits that only touch are fine.
bool conflicts(const ReportEdit &a, const ReportEdit &b) {
  if (a.file != b.file)
    return false;
  std::uint32_t aEnd = a.offset + a.length, bEnd = b.offset + b.length;
  if (a.length && b.length)
    return a.offset < bEnd && b.offset < aEnd;
  if (!a.length && !b.length)
    return a.offset == b.offset;
  const ReportEdit &insertion = a.length ? b : a;
  const ReportEdit &range = a.length ? a : b;
  return range.offset < insertion.offset && insertion.offset < range.offset + range.length;
}

bool sameEdit(const ReportEdit &a, const ReportEdit &b) {
  return std::tie(a.file, a.offset, a.length, a.text) == std::tie(b.file, b.offset, b.length, b.text);
}

std::string place(const Program &P, const Report &other, const Report &mine) {
  const facts::Site &at = P.sites[other.site];
  std::string line = "line " + std::to_string(at.line);
  if (at.file == P.sites[mine.site].file || at.file == kNone)
    return line;
  return llvm::sys::path::filename(P.files[at.file]).str() + ":" + std::to_string(at.line);
}

} // namespace

void settleFixes(const Program &P, const std::vector<Report *> &reports) {
  std::vector<Report *> order;
  for (Report *r : reports)
    if (!r->fixes.empty() && r->site != kNone)
      order.push_back(r);
  static const std::string nowhere;
  auto key = [&](const Report *r) {
    const facts::Site &at = P.sites[r->site];
    return std::tuple<const std::string &, std::uint32_t, const std::string &, const std::string &>(
        at.file == kNone ? nowhere : P.files[at.file], at.offset, r->rule, r->message);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const Report *a, const Report *b) { return key(a) < key(b); });

  struct Taken {
    ReportEdit edit;
    const Report *by;
  };
  std::vector<Taken> taken;
  for (Report *r : order) {
    // One edit made twice by the same report is one edit.
    std::vector<ReportEdit> edits;
    for (const ReportEdit &e : r->fixes)
      if (std::none_of(edits.begin(), edits.end(), [&](const ReportEdit &x) { return sameEdit(x, e); }))
        edits.push_back(e);
    bool selfOverlap = false;
    for (std::size_t i = 0; i < edits.size(); ++i)
      for (std::size_t j = i + 1; j < edits.size(); ++j)
        selfOverlap |= conflicts(edits[i], edits[j]);
    if (selfOverlap) {
      r->fixes.clear();
      r->notes.push_back({r->site, "no fix-it: its edits overlap each other"});
      continue;
    }
    const Report *same = nullptr, *against = nullptr;
    bool allSame = true;
    for (const ReportEdit &e : edits) {
      bool matched = false;
      for (const Taken &t : taken) {
        if (sameEdit(t.edit, e)) {
          matched = true;
          same = same ? same : t.by;
        } else if (conflicts(t.edit, e) && !against) {
          against = t.by;
        }
      }
      allSame &= matched;
    }
    if (allSame && same && !against) {
      r->fixes.clear();
      r->notes.push_back({r->site, "no fix-it of its own: the one for " + same->rule + " at " +
                                       place(P, *same, *r) + " makes the same change"});
      continue;
    }
    if (against || same) {
      const Report *other = against ? against : same;
      r->fixes.clear();
      r->notes.push_back({r->site, "no fix-it: it would overlap the fix-it for " + other->rule +
                                       " at " + place(P, *other, *r) +
                                       "; apply that one and check again"});
      continue;
    }
    std::string title = r->fixes.front().title;
    r->fixes = std::move(edits);
    r->fixes.front().title = title;
    for (const ReportEdit &e : r->fixes)
      taken.push_back({e, r});
  }
}

} // namespace afunix::rules
