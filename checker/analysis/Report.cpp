#include "Report.h"

namespace afunix::analysis {

std::string fillMessage(llvm::StringRef text, const std::map<std::string, std::string> &fill) {
  std::string out = text.str();
  for (const auto &[key, value] : fill) {
    std::string placeholder = "{" + key + "}";
    for (std::size_t at = out.find(placeholder); at != std::string::npos;
         at = out.find(placeholder, at + value.size()))
      out.replace(at, placeholder.size(), value);
  }
  return out;
}

namespace {
// Whether `text` is `pattern` with each {placeholder} replaced by some text.
bool matchesTemplate(llvm::StringRef pattern, llvm::StringRef text) {
  std::size_t open = pattern.find('{');
  if (open == llvm::StringRef::npos)
    return pattern == text;
  llvm::StringRef literal = pattern.take_front(open);
  if (!text.starts_with(literal))
    return false;
  std::size_t close = pattern.find('}', open);
  if (close == llvm::StringRef::npos)
    return false;
  llvm::StringRef rest = pattern.drop_front(close + 1);
  text = text.drop_front(literal.size());
  for (std::size_t skip = 0; skip <= text.size(); ++skip)
    if (matchesTemplate(rest, text.drop_front(skip)))
      return true;
  return false;
}
} // namespace

const ::afunix::catalog::Variant *variantOfMessage(const ::afunix::catalog::Rule &rule,
                                                   llvm::StringRef message) {
  for (std::size_t i = 0; i < rule.variantCount; ++i)
    if (matchesTemplate(rule.variants[i].message, message))
      return &rule.variants[i];
  return nullptr;
}

bool RuleContext::applies() const {
  return Rule && (!Options.targetKernel || ::afunix::catalog::appliesTo(*Rule, *Options.targetKernel));
}

const ::afunix::catalog::Variant *RuleContext::variant(llvm::StringRef id) const {
  if (!Rule)
    return nullptr;
  const ::afunix::catalog::Variant *chosen = ::afunix::catalog::findVariant(*Rule, id);
  if (chosen && Options.targetKernel && !::afunix::catalog::appliesTo(*chosen, *Options.targetKernel))
    return nullptr;
  return chosen;
}

const ::afunix::catalog::Variant *RuleContext::kernelVariant(llvm::StringRef fallback) const {
  if (!Rule)
    return nullptr;
  if (Options.targetKernel)
    for (std::size_t i = 0; i < Rule->variantCount; ++i)
      if (::afunix::catalog::appliesTo(Rule->variants[i], *Options.targetKernel))
        return &Rule->variants[i];
  return ::afunix::catalog::findVariant(*Rule, fallback);
}

Report &RuleContext::report(Id site, const ::afunix::catalog::Variant &chosen,
                            const std::map<std::string, std::string> &fill) {
  Report r;
  r.rule = Rule ? Rule->id : "";
  r.variant = chosen.id;
  r.site = site;
  r.message = fillMessage(chosen.message, fill);
  Reports.push_back(std::move(r));
  return Reports.back();
}

void RuleContext::note(Report &report, Id site, std::string text) {
  if (site == kNone)
    return;
  // Clones of one constructor (one per call) share its source: the same note once.
  for (const ReportNote &n : report.notes)
    if (n.site == site && n.text == text)
      return;
  report.notes.push_back({site, std::move(text)});
}

} // namespace afunix::analysis
