#include "DocsLocation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

#ifndef AFUNIX_DOCS_URL
#define AFUNIX_DOCS_URL ""
#endif
#ifndef AFUNIX_INSTALLED_DOCS_FROM_BIN
#define AFUNIX_INSTALLED_DOCS_FROM_BIN "../share/doc/afunix-compat"
#endif
#ifndef AFUNIX_SOURCE_DOCS_DIR
#define AFUNIX_SOURCE_DOCS_DIR ""
#endif

namespace afunix::check {

namespace {

static int anchor; // an address inside this executable, for getMainExecutable()

bool hasRulePages(llvm::StringRef docsDir) {
  llvm::SmallString<256> probe(docsDir);
  llvm::sys::path::append(probe, "rules");
  return llvm::sys::fs::is_directory(probe);
}

std::string trimSlash(std::string url) {
  while (url.size() > 1 && url.back() == '/' && !llvm::StringRef(url).ends_with("://"))
    url.pop_back();
  return url;
}

} // namespace

std::string fileUrl(llvm::StringRef path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (llvm::isAlnum(c) || llvm::StringRef("-._~/!$&'()*+,;=:@").contains(c))
      out += static_cast<char>(c);
    else
      out += llvm::formatv("%{0:X-2}", static_cast<unsigned>(c)).str();
  }
  return out;
}

bool validDocsUrl(const std::string &url, std::string &error) {
  llvm::StringRef u(url);
  size_t colon = u.find(':');
  bool scheme = colon != llvm::StringRef::npos && colon > 0 && llvm::isAlpha(u[0]) &&
                llvm::all_of(u.take_front(colon), [](char c) {
                  return llvm::isAlnum(c) || c == '+' || c == '-' || c == '.';
                });
  if (!scheme || colon + 1 >= u.size()) {
    error = "'" + url + "' is not an absolute URL (like https://example.org/afunix/docs or "
            "file:///usr/share/doc/afunix-compat)";
    return false;
  }
  for (unsigned char c : u)
    if (c <= 0x20 || c == 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '`') {
      error = "'" + url + "' holds characters a URL cannot (spaces, quotes, control characters)";
      return false;
    }
  return true;
}

DocsLocation findDocs(const std::string &configured, const std::string &origin) {
  if (!configured.empty())
    return {trimSlash(configured), origin};
  if (const char *env = std::getenv("AFUNIX_DOCS_URL"); env && *env) {
    std::string ignored;
    if (validDocsUrl(env, ignored))
      return {trimSlash(env), "AFUNIX_DOCS_URL"};
  }
  if (*AFUNIX_DOCS_URL)
    return {trimSlash(AFUNIX_DOCS_URL), "built in"};
  return {};
}

std::string localDocsDir(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(argv0 ? argv0 : "", &anchor);
  if (!exe.empty()) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(exe));
    llvm::sys::path::append(dir, AFUNIX_INSTALLED_DOCS_FROM_BIN);
    llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
    if (hasRulePages(dir))
      return std::string(dir.str());
  }
  if (*AFUNIX_SOURCE_DOCS_DIR && hasRulePages(AFUNIX_SOURCE_DOCS_DIR))
    return AFUNIX_SOURCE_DOCS_DIR;
  return "";
}

std::string ruleDocUrl(const DocsLocation &docs, llvm::StringRef ruleId) {
  if (docs.baseUrl.empty())
    return "";
  return docs.baseUrl + "/rules/" + ruleId.str() + ".md";
}

} // namespace afunix::check
