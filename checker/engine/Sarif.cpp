// SARIF 2.1.0 writer. Shaped for GitHub code scanning: rules with help and helpUri, results with
// ruleIndex, %SRCROOT%-relative locations, partialFingerprints, related locations and fixes.
#include "Sarif.h"

#include "DocsLocation.h"
#include "Filters.h"
#include "Printable.h"
#include "SourceCache.h"

#include "afunix/RuleCatalog.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"

#include <map>
#include <tuple>

namespace afunix::check {

namespace json = llvm::json;

namespace {

constexpr const char *kSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
constexpr const char *kSrcRoot = "%SRCROOT%";

std::string cleanAbsolute(const std::string &path) {
  llvm::SmallString<256> p(path);
  llvm::sys::fs::make_absolute(p);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p.str());
}

// `file` below `root`, or "" when it is not.
std::string stripRoot(const std::string &file, const std::string &root) {
  llvm::StringRef f(file), r(root);
  r = r.rtrim('/');
  if (r.empty()) // root is "/"
    return f.ltrim('/').str();
  if (f.consume_front(r) && f.starts_with("/"))
    return f.drop_front().str();
  return "";
}

// RFC 3986 path characters stay; everything else (spaces, '%', '#', non-ASCII) is escaped.
std::string uriEscapePath(llvm::StringRef path) {
  std::string out;
  for (unsigned char c : path) {
    if (llvm::isAlnum(c) || llvm::StringRef("-._~/!$&'()*+,;=:@").contains(c))
      out += static_cast<char>(c);
    else
      out += llvm::formatv("%{0:X-2}", static_cast<unsigned>(c)).str();
  }
  return out;
}

std::string levelOf(llvm::StringRef severity) {
  if (severity == "error" || severity == "warning" || severity == "note")
    return severity.str();
  return "warning"; // an unknown override still shows up rather than vanishing as "none"
}

json::Object artifactLocation(const std::string &file, const std::string &root) {
  std::string relative = root.empty() ? "" : relativePath(file, root);
  if (!relative.empty() && !llvm::sys::path::is_absolute(relative))
    return json::Object{{"uri", uriEscapePath(relative)}, {"uriBaseId", kSrcRoot}};
  return json::Object{{"uri", "file://" + uriEscapePath(cleanAbsolute(file))}};
}

// The region of `where`; it ends where the span that starts there ends (the ~~~ under it).
json::Object physicalLocation(const SourcePoint &where, const std::vector<SourceSpan> &spans,
                              const std::string &root, SourceCache &sources) {
  json::Object region{{"startLine", where.line ? where.line : 1}};
  if (where.column) {
    region["startColumn"] = sources.utf16Column(where.file, where.line, where.column);
    for (const SourceSpan &span : spans) {
      const SourcePoint &b = span.begin, &e = span.end;
      if (b.file != where.file || b.line != where.line || b.column != where.column ||
          e.file != where.file || !e.line || !e.column ||
          std::tie(e.line, e.column) <= std::tie(b.line, b.column))
        continue;
      // SARIF's endColumn is the column after the region, as the span's end is.
      region["endLine"] = e.line;
      region["endColumn"] = sources.utf16Column(e.file, e.line, e.column);
      break;
    }
  }
  return json::Object{{"artifactLocation", artifactLocation(where.file, root)},
                      {"region", std::move(region)}};
}

// Relative links of a rule page ("../guide-cli.md", "../../rules/x.yaml") made absolute against
// the page's own URL, or reduced to their text when there is no docs URL: a relative link means
// nothing inside a SARIF viewer.
std::string absoluteLinks(llvm::StringRef markdown, const std::string &pageUrl) {
  std::string out;
  size_t i = 0;
  while (i < markdown.size()) {
    size_t open = markdown.find("](", i);
    if (open == llvm::StringRef::npos) {
      out += markdown.substr(i).str();
      break;
    }
    size_t close = markdown.find(')', open + 2);
    if (close == llvm::StringRef::npos) {
      out += markdown.substr(i).str();
      break;
    }
    llvm::StringRef target = markdown.slice(open + 2, close);
    bool relative = !target.contains("://") && !target.starts_with("#") &&
                    !target.starts_with("mailto:") && !target.starts_with("/");
    if (!relative) {
      out += markdown.slice(i, close + 1).str();
      i = close + 1;
      continue;
    }
    size_t textStart = markdown.rfind('[', open);
    if (pageUrl.empty() || textStart == llvm::StringRef::npos || textStart < i) {
      // No base to resolve against: keep the link text only.
      if (textStart != llvm::StringRef::npos && textStart >= i) {
        out += markdown.slice(i, textStart).str();
        out += markdown.slice(textStart + 1, open).str();
      } else {
        out += markdown.slice(i, close + 1).str();
      }
      i = close + 1;
      continue;
    }
    // Resolve "../x" against the page's directory, as a browser would.
    std::string base = pageUrl.substr(0, pageUrl.rfind('/'));
    llvm::StringRef rest = target;
    while (rest.consume_front("../"))
      base = base.substr(0, base.rfind('/'));
    rest.consume_front("./");
    out += markdown.slice(i, open + 2).str();
    out += base + "/" + rest.str() + ")";
    i = close + 1;
  }
  return out;
}

// "afunix-creds-without-passcred" -> "CredsWithoutPasscred": SARIF's name is a friendly
// Pascal-case identifier and must differ from the id.
std::string friendlyName(llvm::StringRef id) {
  id.consume_front("afunix-");
  std::string out;
  bool upper = true;
  for (char c : id) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? llvm::toUpper(c) : c;
    upper = false;
  }
  return out;
}

json::Object ruleDescriptor(const afunix::catalog::Rule &rule, const DocsLocation &docs,
                            const SarifOptions &options) {
  std::string helpUri = ruleDocUrl(docs, rule.id);
  std::string fix = unwrap(rule.fix);
  llvm::StringRef page = options.embedRulePages ? embeddedRulePage(rule.id) : "";
  std::string markdown =
      !page.empty()
          ? absoluteLinks(page, helpUri)
          : llvm::formatv("**{0}**\n\n{1}\n\n**Fix:** {2}", rule.title, unwrap(rule.whatBreaks), fix)
                .str();
  json::Array tags{"af_unix", "linux-compat", rule.category};
  json::Object properties{{"kernelChange", rule.change},
                          {"kernelFirstVersion", rule.firstVersion},
                          {"kernelCommit", rule.commit}};
  if (*rule.securitySeverity) {
    // GitHub ranks an alert as a security issue when its rule has both of these.
    tags.push_back("security");
    properties["security-severity"] = rule.securitySeverity;
  }
  properties["tags"] = std::move(tags);
  json::Object descriptor{
      {"id", rule.id},
      {"name", friendlyName(rule.id)},
      {"shortDescription", json::Object{{"text", rule.title}}},
      {"fullDescription", json::Object{{"text", unwrap(rule.whatBreaks)}}},
      {"help", json::Object{{"text", fix}, {"markdown", utf8ForJson(markdown)}}},
      {"defaultConfiguration", json::Object{{"level", levelOf(rule.severity)}}},
      {"properties", std::move(properties)},
  };
  if (!helpUri.empty())
    descriptor["helpUri"] = helpUri;
  return descriptor;
}

// SARIF plain-text messages treat "[text](target)" as a link (SARIF 2.1.0, 3.11.6). Brackets of
// the message itself that could read as one are escaped; others (buf[0]) stay as they are.
std::string escapeMessageText(llvm::StringRef text) {
  size_t lastLink = text.rfind("](");
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool linkClose = c == ']' && i + 1 < text.size() && text[i + 1] == '(';
    bool linkOpen = c == '[' && lastLink != llvm::StringRef::npos && i < lastLink;
    if (linkClose || linkOpen)
      out += '\\';
    out += c;
  }
  return out;
}

// The finding's message with a link to each related location (the notes): GitHub shows related
// locations only through such links.
std::string messageWithLinks(const Finding &finding) {
  std::string text = escapeMessageText(finding.message);
  if (finding.notes.empty())
    return text;
  text += " (see ";
  for (std::size_t i = 0; i < finding.notes.size(); ++i) {
    if (i)
      text += ", ";
    text += "[" + escapeMessageText(finding.notes[i].message) + "](" + std::to_string(i + 1) + ")";
  }
  return text + ")";
}

json::Array fixesOf(const Finding &finding, const std::string &root, SourceCache &sources) {
  // One artifactChange per file, edits in offset order, as the schema's "replacements" expects.
  std::map<std::string, std::vector<const Edit *>> byFile;
  for (const Edit &edit : finding.fixes)
    byFile[edit.file].push_back(&edit);
  json::Array changes;
  for (auto &[file, edits] : byFile) {
    std::sort(edits.begin(), edits.end(), [](const Edit *a, const Edit *b) {
      return std::tie(a->offset, a->length) < std::tie(b->offset, b->length);
    });
    json::Array replacements;
    for (const Edit *edit : edits) {
      // Byte and character forms of the same region; readers use the one they understand.
      json::Object deleted{
          {"byteOffset", edit->offset},
          {"byteLength", edit->length},
          {"charOffset", sources.utf16Offset(file, edit->offset)},
          {"charLength", sources.utf16Units(file, edit->offset, edit->offset + edit->length)}};
      json::Object replacement{{"deletedRegion", std::move(deleted)}};
      if (!edit->text.empty())
        replacement["insertedContent"] = json::Object{{"text", edit->text}};
      replacements.push_back(std::move(replacement));
    }
    changes.push_back(json::Object{{"artifactLocation", artifactLocation(file, root)},
                                   {"replacements", std::move(replacements)}});
  }
  json::Array fixes;
  if (!changes.empty())
    fixes.push_back(json::Object{
        {"description", json::Object{{"text", finding.fixTitle.empty()
                                                  ? "afunix-check fix-it for " + finding.rule
                                                  : finding.fixTitle}}},
        {"artifactChanges", std::move(changes)}});
  return fixes;
}

} // namespace

// The catalog's YAML block scalars are wrapped at 100 columns; viewers wrap text themselves, so
// single line breaks become spaces and only paragraph breaks stay.
std::string unwrap(llvm::StringRef text) {
  text = text.trim();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '\n' &&
        (i == 0 || text[i - 1] != '\n'))
      out += ' ';
    else
      out += text[i];
  }
  return out;
}

// The rule's page as compiled in (docs/rules/<id>.md), or "".
llvm::StringRef embeddedRulePage(llvm::StringRef id) {
  static const std::pair<const char *, const char *> kPages[] = {
#include "afunix/RuleDocs.inc"
  };
  for (const auto &[pageId, text] : kPages)
    if (id == pageId)
      return text;
  return "";
}


std::string normaliseLineText(const std::string &text) {
  std::string out;
  bool pendingSpace = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f') {
      pendingSpace = !out.empty();
      continue;
    }
    if (pendingSpace)
      out += ' ';
    pendingSpace = false;
    out += c;
  }
  return out;
}

std::string relativePath(const std::string &file, const std::string &root) {
  if (root.empty())
    return file;
  std::string absFile = cleanAbsolute(file), absRoot = cleanAbsolute(root);
  std::string relative = stripRoot(absFile, absRoot);
  if (relative.empty()) {
    // /tmp vs /private/tmp, a build dir reached through a symlink: compare the real paths.
    llvm::SmallString<256> realFile, realRoot;
    if (!llvm::sys::fs::real_path(absFile, realFile) &&
        !llvm::sys::fs::real_path(absRoot, realRoot))
      relative = stripRoot(std::string(realFile.str()), std::string(realRoot.str()));
  }
  return relative.empty() ? file : relative;
}

std::string fingerprint(const Finding &finding, const std::string &root, unsigned occurrence) {
  std::string key = finding.rule;
  key += '\0';
  key += relativePath(finding.where.file, root);
  key += '\0';
  key += normaliseLineText(finding.lineText);
  std::array<uint8_t, 20> digest = llvm::SHA1::hash(llvm::arrayRefFromStringRef(key));
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest).take_front(12), /*LowerCase=*/true) + ":" +
         std::to_string(occurrence);
}

std::vector<std::string> fingerprints(const RunResult &result, const std::string &root) {
  std::map<std::tuple<std::string, std::string, std::string>, unsigned> seen;
  std::vector<std::string> out;
  out.reserve(result.findings.size());
  for (const Finding &finding : result.findings) {
    unsigned &count = seen[{finding.rule, relativePath(finding.where.file, root),
                            normaliseLineText(finding.lineText)}];
    out.push_back(fingerprint(finding, root, count++));
  }
  return out;
}

std::string renderSarif(const RunResult &result, const SarifOptions &options) {
  using afunix::catalog::kRuleCount;
  using afunix::catalog::kRules;
  SourceCache sources;
  DocsLocation docs = options.docsBaseUrl.empty()
                          ? findDocs("", "")
                          : DocsLocation{options.docsBaseUrl, "SarifOptions"};

  json::Array rules;
  for (std::size_t i = 0; i < kRuleCount; ++i)
    rules.push_back(ruleDescriptor(kRules[i], docs, options));

  std::vector<std::string> prints = fingerprints(result, options.root);
  // One result, made when it is written: the log is streamed, never held whole as JSON values
  // (a json::Object per result costs kilobytes, which thousands of findings turned into gigabytes).
  auto resultAt = [&](std::size_t i) {
    const Finding &finding = result.findings[i];
    json::Object item{
        {"ruleId", finding.rule},
        {"level", levelOf(finding.severity)},
        {"message", json::Object{{"text", utf8ForJson(messageWithLinks(finding))}}},
        {"locations",
         json::Array{json::Object{
             {"physicalLocation",
              physicalLocation(finding.where, finding.spans, options.root, sources)}}}},
        {"partialFingerprints", json::Object{{"afunixFingerprint/v1", prints[i]}}},
    };
    for (std::size_t r = 0; r < kRuleCount; ++r)
      if (finding.rule == kRules[r].id)
        item["ruleIndex"] = static_cast<int64_t>(r);
    if (!finding.notes.empty()) {
      json::Array related;
      int id = 1;
      for (const Note &note : finding.notes)
        related.push_back(json::Object{
            {"id", id++},
            {"physicalLocation", physicalLocation(note.where, note.spans, options.root, sources)},
            {"message", json::Object{{"text", utf8ForJson(escapeMessageText(note.message))}}}});
      item["relatedLocations"] = std::move(related);
    }
    if (!finding.properties.empty()) {
      json::Object properties;
      for (const Finding::Property &p : finding.properties)
        properties[p.name] = p.isNumber ? json::Value(static_cast<int64_t>(p.number)) : json::Value(p.text);
      item["properties"] = std::move(properties);
    }
    json::Array fixes = fixesOf(finding, options.root, sources);
    if (!fixes.empty())
      item["fixes"] = std::move(fixes);
    return json::Value(std::move(item));
  };

  bool allParsed = true;
  json::Array notifications;
  for (const FileOutcome &file : result.files) {
    allParsed = allParsed && file.parsed;
    for (const std::string &error : file.errors)
      notifications.push_back(json::Object{
          {"level", "error"},
          {"message", json::Object{{"text", utf8ForJson(error)}}},
          {"locations", json::Array{json::Object{
                            {"physicalLocation",
                             json::Object{{"artifactLocation",
                                           artifactLocation(file.file, options.root)}}}}}}});
  }
  // Findings left out (NOLINT, filters, baseline) are said, never silently missing.
  if (std::string dropped = describeDropped(result.dropped); !dropped.empty())
    notifications.push_back(json::Object{{"level", "note"},
                                         {"message", json::Object{{"text", dropped}}}});
  json::Object invocation{{"executionSuccessful", allParsed}};
  if (!notifications.empty())
    invocation["toolExecutionNotifications"] = std::move(notifications);

  std::string version = options.toolVersion.empty() ? "0.0.0" : options.toolVersion;
  json::Object driver{
      {"name", options.toolName.empty() ? "afunix-check" : options.toolName},
      {"version", version},
      {"semanticVersion", version},
      {"rules", std::move(rules)},
  };
  if (!docs.baseUrl.empty())
    driver["informationUri"] = docs.baseUrl + "/README.md";
  // Keys in sorted order, as llvm::json prints an object's.
  std::string out;
  llvm::raw_string_ostream os(out);
  json::OStream J(os, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("$schema", kSchemaUri);
    J.attributeArray("runs", [&] {
      J.object([&] {
        J.attribute("columnKind", "utf16CodeUnits");
        J.attribute("invocations", json::Array{std::move(invocation)});
        if (options.rootUnnamed) {
          J.attribute("originalUriBaseIds",
                      json::Object{{kSrcRoot, json::Object{{"description",
                                                            json::Object{{"text", "the directory afunix-check ran in"}}}}}});
        } else if (!options.root.empty()) {
          std::string rootUri = "file://" + uriEscapePath(cleanAbsolute(options.root));
          if (!llvm::StringRef(rootUri).ends_with("/"))
            rootUri += '/';
          J.attribute("originalUriBaseIds", json::Object{{kSrcRoot, json::Object{{"uri", rootUri}}}});
        }
        J.attributeArray("results", [&] {
          for (std::size_t i = 0; i < result.findings.size(); ++i)
            J.value(resultAt(i));
        });
        J.attribute("tool", json::Object{{"driver", std::move(driver)}});
      });
    });
    J.attribute("version", "2.1.0");
  });
  os.flush();
  return out + "\n";
}

} // namespace afunix::check
