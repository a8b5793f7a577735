#include "Prefilter.h"

#include "FactsCache.h"
#include "FactsBinary.h"
#include "Program.h"
#include "Relevance.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <thread>

namespace afunix::check {

namespace {

bool identifierStart(char c) { return llvm::isAlpha(c) || c == '_' || c == '$'; }
bool identifierChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; }

} // namespace

void scanSource(llvm::StringRef text, bool header, std::vector<std::string> &identifiers,
                std::vector<std::string> &members, std::vector<std::string> &declared,
                std::vector<MacroText> &macros, std::vector<std::string> &includes,
                bool &computedInclude) {
  const char *p = text.begin(), *end = text.end();
  bool lineStart = true; // only whitespace since the last newline: a '#' starts a directive
  // A header's declarations make no fact in the file that includes it; what it runs there does:
  // function bodies, initializers and default arguments, member initializer lists, macro bodies.
  // Braces: a function body or an initializer counts, a class or namespace scope does not.
  enum class Brace { Scope, Counted };
  std::vector<Brace> braces;
  struct Statement {
    std::vector<std::string> words;
    std::vector<const char *> starts; // where each word is
    int parens = 0;
    bool closedParen = false; // a top-level (...) ended: a function's parameters
    bool initializer = false; // '=' somewhere: an initializer or a default argument
    bool scopeHead = false;   // struct/class/union/namespace/extern before any (...)
    bool enumHead = false;
    std::size_t initList = std::string::npos; // ':' after the parameters: a member initializer list
    char last = 0;            // the last punctuation
  } st;
  // Whether the identifier at `at` follows `.` or `->`: a member access.
  auto memberAccess = [&](const char *at) {
    while (at > text.begin() && (at[-1] == ' ' || at[-1] == '\t' || at[-1] == '\n'))
      --at;
    return (at > text.begin() && at[-1] == '.') ||
           (at - text.begin() >= 2 && at[-1] == '>' && at[-2] == '-');
  };
  auto count = [&](llvm::StringRef word, const char *at) {
    identifiers.push_back(word.str());
    if (memberAccess(at))
      members.push_back(word.str());
  };
  auto inBody = [&] { return !braces.empty() && braces.back() == Brace::Counted; };
  // What a header runs; all of a main file (its declarations too, as they are written).
  auto emit = [&](std::size_t from) {
    if (header)
      for (std::size_t i = from; i < st.words.size(); ++i)
        count(st.words[i], st.starts[i]);
  };
  auto endStatement = [&] {
    declared.insert(declared.end(), st.words.begin(), st.words.end());
    st = Statement();
  };
  auto skipBlank = [&] {
    while (p < end && (*p == ' ' || *p == '\t' || (*p == '\\' && p + 1 < end && p[1] == '\n')))
      p += *p == '\\' ? 2 : 1;
  };
  auto skipQuoted = [&](char quote) {
    for (++p; p < end && *p != quote && *p != '\n'; ++p)
      if (*p == '\\' && p + 1 < end)
        ++p;
    if (p < end && *p == quote)
      ++p;
  };
  bool inDirective = false, inDefine = false;
  std::vector<llvm::StringRef> macroParams;
  while (p < end) {
    char c = *p;
    if (c == '\n') {
      lineStart = true;
      inDirective = inDefine = false;
      ++p;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++p;
      continue;
    }
    if (c == '\\' && p + 1 < end && (p[1] == '\n' || p[1] == '\r')) {
      p += p[1] == '\r' && p + 2 < end && p[2] == '\n' ? 3 : 2; // a continued line stays one
      continue;
    }
    if (c == '/' && p + 1 < end && p[1] == '/') {
      // A line comment, continued by a backslash at its end.
      for (p += 2; p < end && *p != '\n'; ++p)
        if (*p == '\\' && p + 1 < end && p[1] == '\n')
          ++p;
      continue;
    }
    if (c == '/' && p + 1 < end && p[1] == '*') {
      const char *close = static_cast<const char *>(memmem(p + 2, end - p - 2, "*/", 2));
      p = close ? close + 2 : end;
      continue;
    }
    if (c == '#' && lineStart) {
      lineStart = false;
      inDirective = true;
      ++p;
      skipBlank();
      const char *word = p;
      while (p < end && identifierChar(*p))
        ++p;
      llvm::StringRef directive(word, p - word);
      inDefine = directive == "define";
      macroParams.clear();
      if (inDefine) {
        // The macro's name is what it defines; its parameters stand for what a use passes.
        skipBlank();
        const char *name = p;
        while (p < end && identifierChar(*p))
          ++p;
        // A header's #define uses nothing (its body counts where the macro is used): defining
        // CMSG_DATA must not make every file that includes the header name it (nginx's
        // ngx_freebsd_config.h made all 209 files seeds). A main file's definitions count.
        if (header)
          macros.push_back({std::string(name, p - name), {}, {}});
        else
          declared.emplace_back(name, p - name);
        if (p < end && *p == '(')
          for (++p; p < end && *p != ')' && *p != '\n'; ++p)
            if (identifierStart(*p)) {
              const char *param = p;
              while (p + 1 < end && identifierChar(p[1]))
                ++p;
              macroParams.emplace_back(param, p + 1 - param);
            }
      }
      if (directive == "include" || directive == "include_next" || directive == "import") {
        skipBlank();
        if (p < end && (*p == '"' || *p == '<')) {
          char close = *p == '"' ? '"' : '>';
          const char *start = p++;
          while (p < end && *p != close && *p != '\n')
            ++p;
          if (p < end && *p == close)
            includes.emplace_back(start, ++p - start);
        } else if (p < end && identifierStart(*p)) {
          computedInclude = true; // #include HEADER: which file, only the preprocessor knows
        }
      }
      continue;
    }
    lineStart = false;
    if (c == '"' || c == '\'') {
      skipQuoted(c);
      continue;
    }
    if (llvm::isDigit(c) || (c == '.' && p + 1 < end && llvm::isDigit(p[1]))) {
      // A pp-number (0x1fULL, 1e+10, 1'000): no identifier inside.
      for (++p; p < end; ++p) {
        if ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E' || p[-1] == 'p' || p[-1] == 'P'))
          continue;
        if (*p == '\'' && p + 1 < end && identifierChar(p[1]))
          continue;
        if (!identifierChar(*p) && *p != '.')
          break;
      }
      continue;
    }
    if (identifierStart(c)) {
      const char *start = p;
      while (p < end && identifierChar(*p))
        ++p;
      llvm::StringRef word(start, p - start);
      // A raw string literal: R"delim( ... )delim", with any encoding prefix.
      if (p < end && *p == '"' &&
          (word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R")) {
        const char *open = p + 1;
        const char *paren = open;
        while (paren < end && *paren != '(' && *paren != '\n' && paren - open <= 16)
          ++paren;
        if (paren < end && *paren == '(') {
          std::string closing = ")" + std::string(open, paren - open) + "\"";
          const char *close = static_cast<const char *>(
              memmem(paren, end - paren, closing.data(), closing.size()));
          p = close ? close + closing.size() : end;
          continue;
        }
      }
      if (p < end && (*p == '"' || *p == '\'') &&
          (word == "L" || word == "u" || word == "U" || word == "u8"))
        continue; // an encoding prefix: the literal follows
      if (inDirective) {
        if (inDefine && (llvm::is_contained(macroParams, word) || word == "__VA_ARGS__"))
          continue;
        if (header && inDefine && !macros.empty()) {
          // Counted where the macro is used (TextIndex), not in every file that includes it.
          macros.back().identifiers.push_back(word.str());
          if (memberAccess(start))
            macros.back().members.push_back(word.str());
        } else if (!header) {
          count(word, start);
        }
        if (inDefine && !header)
          declared.push_back(word.str()); // a macro may define a function: DEFINE_HANDLER(on_read)
        continue;
      }
      if (!header || inBody())
        count(word, start);
      if (inBody())
        continue;
      if (st.parens == 0 && !st.closedParen) {
        if (word == "struct" || word == "class" || word == "union" || word == "namespace" ||
            word == "extern")
          st.scopeHead = true;
        else if (word == "enum")
          st.enumHead = true;
      }
      st.words.push_back(word.str());
      st.starts.push_back(start);
      continue;
    }
    ++p;
    if (inDirective || inBody()) {
      if (!inDirective && c == '{')
        braces.push_back(Brace::Counted);
      else if (!inDirective && c == '}' && !braces.empty())
        braces.pop_back();
      continue;
    }
    // A header, outside bodies and initializers: one declaration at a time.
    switch (c) {
    case '(':
      ++st.parens;
      break;
    case ')':
      if (st.parens > 0 && --st.parens == 0)
        st.closedParen = true;
      break;
    case '=':
      if (p < end && *p == '=')
        ++p; // ==
      else if (st.last != '<' && st.last != '>' && st.last != '!')
        st.initializer = true;
      break;
    case ':':
      if (p < end && *p == ':')
        ++p; // a scope, not an initializer list
      else if (st.parens == 0 && st.closedParen && st.initList == std::string::npos)
        st.initList = st.words.size();
      break;
    case ';':
      if (st.initializer)
        emit(0);
      endStatement();
      break;
    case '{': {
      Brace brace = Brace::Counted;
      if (st.closedParen)
        emit(st.initializer ? 0 : st.initList == std::string::npos ? st.words.size() : st.initList);
      else if (st.scopeHead && !st.enumHead)
        brace = Brace::Scope;
      else
        emit(0); // an initializer, an enum's values
      braces.push_back(brace);
      endStatement();
      break;
    }
    case '}':
      if (!braces.empty())
        braces.pop_back();
      endStatement();
      break;
    default:
      break;
    }
    st.last = c;
  }
  // A declaration the text ends in the middle of: counted as it would be.
  if (st.initializer)
    emit(0);
  endStatement();
}

namespace {

// Where a job's #include directives find project headers: its -iquote, -I and -idirafter
// directories (relative to its directory), and what it includes before its first line (-include,
// -imacros). System directories are not searched: no fact comes from a system header.
struct SearchPath {
  std::vector<std::string> quoted, angled, forced;
  std::string defines; // the -D values, as text of the job's own
};

std::string absoluteIn(const std::string &directory, llvm::StringRef path) {
  llvm::SmallString<256> out(path);
  if (!llvm::sys::path::is_absolute(out)) {
    llvm::SmallString<256> base(directory);
    llvm::sys::path::append(base, out);
    out = base;
  }
  llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
  return std::string(out);
}

SearchPath searchPathOf(const CompileJob &job) {
  SearchPath out;
  const std::vector<std::string> &argv = job.argv;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    llvm::StringRef arg = argv[i];
    // Each option as clang spells it: joined (-Idir), separate (-I dir) or with '=' (--include-directory=dir).
    auto value = [&](std::initializer_list<llvm::StringRef> spellings, std::string &into) {
      for (llvm::StringRef spelling : spellings) {
        if (arg == spelling && i + 1 < argv.size()) {
          into = argv[++i];
          return true;
        }
        if (arg.starts_with(spelling) && arg.size() > spelling.size()) {
          llvm::StringRef rest = arg.drop_front(spelling.size());
          if (spelling.ends_with("=") || !spelling.starts_with("--"))
            into = rest.str();
          else if (rest.consume_front("="))
            into = rest.str();
          else
            continue;
          return true;
        }
      }
      return false;
    };
    std::string v;
    if (value({"-iquote"}, v))
      out.quoted.push_back(absoluteIn(job.directory, v));
    else if (value({"-I", "--include-directory", "-idirafter", "--include-directory-after"}, v))
      out.angled.push_back(absoluteIn(job.directory, v));
    else if (value({"-include", "--include", "-imacros", "--imacros"}, v))
      out.forced.push_back(absoluteIn(job.directory, v));
    else if (value({"-D", "--define-macro"}, v))
      out.defines += v + "\n";
  }
  return out;
}

// What scanSource() found in one file.
struct Scan {
  std::vector<std::string> words, members, declared;
  std::vector<MacroText> macros;
};

void sortUnique(std::vector<std::string> &words) {
  if (!std::is_sorted(words.begin(), words.end()))
    std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
}

// Each list sorted, without repeats: as interned (so kept), in the workers that scan.
void sortUnique(Scan &scan) {
  for (std::vector<std::string> *words : {&scan.words, &scan.members, &scan.declared})
    sortUnique(*words);
  for (MacroText &macro : scan.macros) {
    sortUnique(macro.identifiers);
    sortUnique(macro.members);
  }
}

// A file's scan as the facts cache keeps it (FactsCache::rememberForFile()).
std::string encodeScan(const Scan &scan, const std::vector<std::string> &includes,
                       bool computedInclude) {
  std::string out;
  facts::putStrings(out, scan.words);
  facts::putStrings(out, scan.members);
  facts::putStrings(out, scan.declared);
  facts::putVarint(out, scan.macros.size());
  for (const MacroText &macro : scan.macros) {
    facts::putString(out, macro.name);
    facts::putStrings(out, macro.identifiers);
    facts::putStrings(out, macro.members);
  }
  facts::putStrings(out, includes);
  facts::putVarint(out, computedInclude ? 1 : 0);
  return out;
}

bool decodeScan(llvm::StringRef in, Scan &scan, std::vector<std::string> &includes,
                bool &computedInclude) {
  std::uint64_t macros = 0, computed = 0;
  if (!facts::getStrings(in, scan.words) || !facts::getStrings(in, scan.members) ||
      !facts::getStrings(in, scan.declared) || !facts::getVarint(in, macros) || macros > in.size())
    return false;
  scan.macros.resize(macros);
  for (MacroText &macro : scan.macros) {
    llvm::StringRef name;
    if (!facts::getString(in, name) || !facts::getStrings(in, macro.identifiers) ||
        !facts::getStrings(in, macro.members))
      return false;
    macro.name = name.str();
  }
  if (!facts::getStrings(in, includes) || !facts::getVarint(in, computed) || computed > 1)
    return false;
  computedInclude = computed == 1;
  return in.empty();
}

// The identifiers of every file read, interned, and which files each job's text is made of.
class TextIndex {
public:
  // `unread[j]`: job j's text is not needed (it never matches); empty: every job's is.
  // `cache`: where the scans of files not changed since an earlier run are (nullptr: none).
  TextIndex(const std::vector<CompileJob> &jobs, const std::vector<bool> &unread, unsigned threads,
            FactsCache *cache)
      : Jobs(jobs.size()), Cache(cache) {
    auto needed = [&](std::size_t j) { return unread.empty() || !unread[j]; };
    std::vector<SearchPath> paths(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (needed(j))
        paths[j] = searchPathOf(jobs[j]);
    // Read and scan the main files in parallel (most of the bytes); headers as they are found.
    std::vector<std::size_t> mains(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (needed(j)) {
        mains[j] = fileIndex(jobs[j].file);
        Files[mains[j]].main = true;
      }
    scanPending(threads);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (!needed(j))
        continue;
      JobText &text = Jobs[j];
      const SearchPath &path = paths[j];
      if (!path.defines.empty()) {
        std::size_t own = Files.size();
        Files.push_back({"<command line of " + jobs[j].file + ">"});
        ++CommandLines;
        Files.back().scanned = true;
        std::vector<std::string> ids, members, declared, includes;
        std::vector<MacroText> macros;
        bool computed = false;
        scanSource(path.defines, /*header=*/false, ids, members, declared, macros, includes, computed);
        Files.back().ids = intern(ids);
        text.files.push_back(own);
      }
      std::vector<std::size_t> queue;
      std::set<std::size_t> seen;
      auto visit = [&](std::size_t file) {
        if (seen.insert(file).second)
          queue.push_back(file);
      };
      for (const std::string &forced : path.forced)
        if (exists(forced))
          visit(fileIndex(forced));
      visit(mains[j]);
      bool cxx = !llvm::StringRef(jobs[j].file).ends_with(".c");
      for (std::size_t q = 0; q < queue.size(); ++q) {
        scanPending(1);
        Files[queue[q]].cxx |= cxx;
        // Copies: fileIndex() below may grow Files.
        text.computedInclude |= Files[queue[q]].computedInclude;
        text.unreadable |= !Files[queue[q]].readable;
        std::string directory = llvm::sys::path::parent_path(Files[queue[q]].path).str();
        std::vector<std::string> includes = Files[queue[q]].includes;
        for (const std::string &spelled : includes) {
          std::optional<std::string> found = resolve(spelled, directory, path);
          if (found)
            visit(fileIndex(*found));
          else if (spelled.front() == '"')
            // "x.h" found in no project directory: a header generated later or missing, whose
            // text is unknown (and whose absence a parse reports). <x.h>: a system header.
            text.missingHeader = true;
        }
      }
      text.files.insert(text.files.end(), queue.begin(), queue.end());
    }
  }

  // Interned ids of the names that occur in some file (the others match nothing).
  std::vector<bool> idsOf(const std::set<std::string> &names) const {
    std::vector<bool> out(Ids.size());
    for (const std::string &name : names)
      if (auto it = Ids.find(name); it != Ids.end())
        out[it->second] = true;
    return out;
  }

  // What a round looks for, by interned id: names used anywhere, definitions (a main file naming
  // it outside function bodies), fields (named after `.` or `->`; anywhere in C++, where a member
  // function names its class's fields alone).
  struct Wanted {
    std::vector<bool> used, defined, fields;
    std::vector<bool> macros; // header macros whose body names something wanted (withMacros())
  };

  // `wanted` with the header macros whose bodies (or the macros they use) name what it wants: a
  // file that uses one names it too.
  Wanted withMacros(Wanted wanted) const {
    auto want = [&](const std::vector<bool> &set, std::uint32_t id) { return !set.empty() && set[id]; };
    wanted.macros.assign(Ids.size(), false);
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto &[name, body] : MacroBodies) {
        if (wanted.macros[name])
          continue;
        bool hit = false;
        for (std::uint32_t id : body.identifiers)
          hit |= want(wanted.used, id) || wanted.macros[id];
        for (std::uint32_t id : body.members)
          hit |= want(wanted.fields, id);
        if (hit)
          changed = wanted.macros[name] = true;
      }
    }
    return wanted;
  }

  // Per job: whether its text names something `wanted`.
  std::vector<bool> mentioning(const Wanted &wanted) const {
    std::vector<char> fileHits(Files.size(), 0);
    for (std::size_t f = 0; f < Files.size(); ++f)
      fileHits[f] = !hit(f, wanted).empty();
    std::vector<bool> out(Jobs.size());
    for (std::size_t j = 0; j < Jobs.size(); ++j)
      for (std::size_t f : Jobs[j].files)
        if (fileHits[f]) {
          out[j] = true;
          break;
        }
    return out;
  }

  // What the job's text names of `wanted`, for explaining ("" when nothing).
  std::string mentionOf(std::size_t job, const Wanted &wanted) const {
    for (std::size_t f : Jobs[job].files)
      if (std::string found = hit(f, wanted); !found.empty())
        return found + " in " + Files[f].path;
    return "";
  }

  // The first name of `wanted` file `f` names, "" when none.
  std::string hit(std::size_t f, const Wanted &wanted) const {
    const FileText &file = Files[f];
    for (std::uint32_t id : file.ids)
      if ((!wanted.used.empty() && wanted.used[id]) || (file.cxx && !wanted.fields.empty() && wanted.fields[id]))
        return Words[id];
    // A header macro it uses (a header's declarations may use one too: DEFINE_HANDLER(x);).
    for (const std::vector<std::uint32_t> *ids : {&file.ids, &file.declared})
      for (std::uint32_t id : *ids)
        if (!wanted.macros.empty() && wanted.macros[id])
          return "the macro " + Words[id];
    if (!wanted.fields.empty())
      for (std::uint32_t id : file.members)
        if (wanted.fields[id])
          return "the field " + Words[id];
    if (!wanted.defined.empty() && file.main)
      for (std::uint32_t id : file.declared)
        if (wanted.defined[id])
          return "the definition of " + Words[id];
    return "";
  }

  // Jobs the text cannot speak for: a computed #include, an unreadable file, a quoted #include
  // found nowhere.
  bool opaque(std::size_t job) const {
    return Jobs[job].computedInclude || Jobs[job].unreadable || Jobs[job].missingHeader;
  }
  std::size_t filesRead() const { return Files.size() - CommandLines; } // not the -D texts
  // Of those, the files whose scan the facts cache had (by their stamp): not read.
  std::size_t filesKnownByStamp() const { return KnownByStamp; }

private:
  struct FileText {
    std::string path;
    bool scanned = false, readable = true, computedInclude = false;
    bool main = false; // a compile job's own file: all of its text counts, not only what a header runs
    bool cxx = false;  // read as C++ (a header counts as C++ when a C++ job includes it)
    std::vector<std::uint32_t> ids;
    std::vector<std::uint32_t> declared; // identifiers outside function bodies
    std::vector<std::uint32_t> members;  // identifiers after `.` or `->`
    std::vector<std::string> includes;
  };
  struct JobText {
    std::vector<std::size_t> files; // the main file, the project headers it includes, its -D text
    bool computedInclude = false, unreadable = false, missingHeader = false;
  };

  std::size_t fileIndex(const std::string &path) {
    auto [it, fresh] = FileIds.try_emplace(path, Files.size());
    if (fresh) {
      Files.push_back({path});
      Pending.push_back(it->second);
    }
    return it->second;
  }

  bool exists(const std::string &path) {
    auto [it, fresh] = Exists.try_emplace(path, false);
    if (fresh)
      it->second = llvm::sys::fs::is_regular_file(path);
    return it->second;
  }

  std::optional<std::string> resolve(llvm::StringRef spelled, const std::string &directory,
                                     const SearchPath &path) {
    bool quoted = spelled.front() == '"';
    llvm::StringRef name = spelled.drop_front().drop_back();
    if (name.empty())
      return std::nullopt;
    if (llvm::sys::path::is_absolute(name))
      return exists(absoluteIn("/", name)) ? std::optional(absoluteIn("/", name)) : std::nullopt;
    auto tryIn = [&](const std::string &dir) -> std::optional<std::string> {
      std::string candidate = absoluteIn(dir, name);
      return exists(candidate) ? std::optional(candidate) : std::nullopt;
    };
    if (quoted) {
      if (auto found = tryIn(directory))
        return found;
      for (const std::string &dir : path.quoted)
        if (auto found = tryIn(dir))
          return found;
    }
    for (const std::string &dir : path.angled)
      if (auto found = tryIn(dir))
        return found;
    return std::nullopt; // a system header, or one the compiler will not find either
  }

  std::vector<std::uint32_t> intern(std::vector<std::string> &words) {
    sortUnique(words); // done already by the workers that scanned them (a pass to see it)
    std::vector<std::uint32_t> out;
    out.reserve(words.size());
    for (const std::string &w : words) {
      auto [it, fresh] = Ids.try_emplace(w, static_cast<std::uint32_t>(Ids.size()));
      if (fresh)
        Words.push_back(w);
      out.push_back(it->second);
    }
    return out;
  }

  // Reads and scans the files found since the last call (in parallel when there are many). A
  // file whose stamp the facts cache knows is not read: its scan is the one recorded.
  void scanPending(unsigned threads) {
    if (Pending.empty())
      return;
    std::vector<std::size_t> batch;
    batch.swap(Pending);
    std::vector<Scan> scans(batch.size());
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t b; (b = next.fetch_add(1)) < batch.size();) {
        FileText &file = Files[batch[b]];
        file.scanned = true;
        // How the text was scanned: a main file's all of it, a header's what it runs.
        llvm::StringRef kind = file.main ? "prefilter-scan:main" : "prefilter-scan:header";
        std::optional<FactsCache::Stamp> before;
        if (Cache && (before = FactsCache::stampOf(file.path)))
          if (std::optional<std::string> value = Cache->recallForFile(file.path, kind, *before)) {
            if (decodeScan(*value, scans[b], file.includes, file.computedInclude)) {
              ++KnownByStamp;
              continue;
            }
            scans[b] = Scan();
            file.includes.clear();
            file.computedInclude = false;
          }
        auto buffer = llvm::MemoryBuffer::getFile(file.path, /*IsText=*/false,
                                                  /*RequiresNullTerminator=*/false);
        if (!buffer) {
          file.readable = false;
          continue;
        }
        scanSource((*buffer)->getBuffer(), !file.main, scans[b].words, scans[b].members,
                   scans[b].declared, scans[b].macros, file.includes, file.computedInclude);
        sortUnique(scans[b]);
        // Remembered when the stamp taken before the read is still the file's after it.
        if (before && FactsCache::stampOf(file.path) == before)
          Cache->rememberForFile(file.path, kind, *before,
                                 encodeScan(scans[b], file.includes, file.computedInclude));
      }
    };
    unsigned count = std::max(1u, std::min<unsigned>(threads, batch.size() / 16));
    std::vector<std::thread> workers;
    for (unsigned t = 1; t < count; ++t)
      workers.emplace_back(work);
    work();
    for (std::thread &t : workers)
      t.join();
    for (std::size_t b = 0; b < batch.size(); ++b) {
      Files[batch[b]].ids = intern(scans[b].words);
      Files[batch[b]].members = intern(scans[b].members);
      Files[batch[b]].declared = intern(scans[b].declared);
      for (MacroText &macro : scans[b].macros) {
        std::vector<std::string> name{macro.name};
        MacroBody &body = MacroBodies[intern(name).front()];
        for (std::uint32_t id : intern(macro.identifiers))
          body.identifiers.push_back(id);
        for (std::uint32_t id : intern(macro.members))
          body.members.push_back(id);
      }
    }
  }

  std::vector<JobText> Jobs;
  std::vector<FileText> Files; // a std::vector: indices stay, references do not across fileIndex()
  llvm::StringMap<std::size_t> FileIds;
  llvm::StringMap<bool> Exists;
  llvm::StringMap<std::uint32_t> Ids;
  std::vector<std::string> Words; // by id
  // Every header's macros by name (the bodies of all definitions of a name together).
  struct MacroBody {
    std::vector<std::uint32_t> identifiers, members;
  };
  std::map<std::uint32_t, MacroBody> MacroBodies;
  std::vector<std::size_t> Pending;
  FactsCache *Cache = nullptr;
  std::atomic<std::size_t> KnownByStamp{0};
  std::size_t CommandLines = 0; // of Files: the -D values of a job's command, not a file
};

} // namespace

namespace {

bool explaining() {
  // AFUNIX_PREFILTER_EXPLAIN=1: say on stderr why each file is parsed (for diagnosing a miss).
  const char *value = std::getenv("AFUNIX_PREFILTER_EXPLAIN");
  return value && llvm::StringRef(value) == "1";
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A unit the prefilter did not parse (yet): empty, and saying so.
ExtractedUnit skippedUnit(const CompileJob &job, const analysis::ProjectOptions &project) {
  ExtractedUnit unit;
  unit.unit.mainFile = project.recordedPath(job.file);
  unit.unit.skipped = true;
  unit.unit.target = job.target;
  unit.outcome.file = job.file;
  unit.outcome.parsed = true;
  unit.outcome.skipped = true;
  // What the stored facts file keys the unit's line by (its content is fixed by these).
  unit.digest = fileDigest("afunix-skipped\0" + unit.unit.mainFile);
  return unit;
}

// The key a round's names that matter are remembered by in the facts cache: a digest of
// everything its link reads (every unit's facts and target, what the link adds), "" when some
// unit's facts have no digest (not from or into the cache) or there is no cache.
std::string roundKey(const std::vector<ExtractedUnit> &units, const PrefilterSettings &filter,
                     const FactsCache *cache) {
  if (!cache || (filter.link && filter.linkInputsDigest.empty()))
    return "";
  std::string all = "afunix-prefilter-round";
  all.push_back('\0');
  all += filter.linkInputsDigest;
  for (const ExtractedUnit &unit : units) {
    if (unit.digest.empty())
      return "";
    all.push_back('\0');
    all += unit.digest;
    all.push_back('\0');
    all += unit.unit.target;
  }
  return "prefilter-round:" + fileDigest(all);
}

std::string encodeNames(const analysis::NamesThatMatter &names) {
  std::string out;
  for (const std::set<std::string> *set : {&names.used, &names.defined, &names.fields})
    facts::putStrings(out, *set);
  return out;
}

std::optional<analysis::NamesThatMatter> decodeNames(llvm::StringRef in) {
  analysis::NamesThatMatter names;
  for (std::set<std::string> *set : {&names.used, &names.defined, &names.fields}) {
    std::vector<std::string> list;
    if (!facts::getStrings(in, list))
      return std::nullopt;
    set->insert(list.begin(), list.end());
  }
  if (!in.empty())
    return std::nullopt;
  return names;
}

// The rounds: parse what is wanted (and may be parsed here), link, read the names that matter,
// want the files that name them; until a round wants nothing new. `out[j]` is job j's unit
// (skipped until parsed), `done[j]` whether it holds facts. Returns the number of rounds.
unsigned runRounds(const std::vector<CompileJob> &jobs,
                   const std::vector<const analysis::ProjectOptions *> &project,
                   const ExtractionSettings &settings, const PrefilterSettings &filter,
                   const TextIndex &text, std::vector<ExtractedUnit> &out, std::vector<bool> &done,
                   std::vector<bool> wanted, bool explain) {
  auto parseable = [&](std::size_t j) { return filter.parseable.empty() || filter.parseable[j]; };
  // Each round's parses see the files and driver results of the earlier rounds'.
  std::shared_ptr<ExtractionSession> session = newExtractionSession();
  std::size_t finished = 0, total = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    total += parseable(j) && !done[j];
  unsigned rounds = 0, linksSpared = 0; // links spared: their names remembered
  double namesWall = 0, namesCpu = 0; // reading the names that matter out of each round's facts
  for (bool first = true;; first = false) {
    std::vector<std::size_t> batch;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (wanted[j] && !done[j] && parseable(j))
        batch.push_back(j);
    if (batch.empty() && !first)
      break;
    if (!batch.empty()) {
      ++rounds;
      std::vector<CompileJob> batchJobs;
      std::vector<const analysis::ProjectOptions *> batchProject;
      ExtractionSettings batchSettings = settings;
      if (!batchSettings.session)
        batchSettings.session = session;
      batchSettings.wantInputs.clear();
      for (std::size_t j : batch) {
        batchJobs.push_back(jobs[j]);
        batchProject.push_back(project[j]);
        batchSettings.wantInputs.push_back(j < settings.wantInputs.size() && settings.wantInputs[j]);
      }
      if (settings.progress)
        batchSettings.progress = [&](std::size_t done, std::size_t, const std::string &file, bool cached) {
          settings.progress(finished + done, total, file, cached);
        };
      std::vector<ExtractedUnit> units = extractUnits(batchJobs, batchProject, batchSettings);
      finished += batch.size();
      for (std::size_t b = 0; b < batch.size(); ++b) {
        out[batch[b]] = std::move(units[b]);
        out[batch[b]].unit.target = jobs[batch[b]].target; // from the command, never cached
        done[batch[b]] = true;
      }
    }
    // The files the facts could pull in at most, without a link: those naming any function,
    // field or global of the parsed units. None: the run's link follows. Otherwise they are
    // parsed in the next round without asking the link only when they are at most half as many
    // as the files parsed (of at least kLinkWorthIt: a small link is cheap). A link costs from a
    // hundredth of what parsing its units did (skalibs, breakpad) to as much or twice that (dbus,
    // eudev, pipewire), and where such files are many they are mostly files that share a common
    // field name (skalibs' `len`), which the link spares. Counts, not measured times, decide: the
    // same facts make the same choices in every run.
    std::vector<const facts::Unit *> parsedUnits;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (done[j])
        parsedUnits.push_back(&out[j].unit);
    TextIndex::Wanted broad;
    broad.used = text.idsOf(analysis::namesInFacts(parsedUnits));
    broad = text.withMacros(std::move(broad));
    std::vector<bool> candidates = text.mentioning(broad);
    std::size_t candidateCount = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      candidateCount += candidates[j] && !done[j] && !wanted[j] && parseable(j);
    constexpr std::size_t kLinkWorthIt = 32;
    if (candidateCount > 0 && 2 * candidateCount <= parsedUnits.size() &&
        parsedUnits.size() >= kLinkWorthIt) {
      for (std::size_t j = 0; j < jobs.size(); ++j)
        if (candidates[j] && !done[j] && !wanted[j] && parseable(j)) {
          if (explain)
            llvm::errs() << "afunix-check: prefilter: round " << rounds + 1 << ": " << jobs[j].file
                         << ": names " << text.mentionOf(j, broad) << " (one of few files that may matter)\n";
          wanted[j] = true;
        }
      continue;
    }
    auto link = [&] {
      PhaseTimer linkTimer(settings.stats, "link (prefilter round)");
      if (filter.link)
        return filter.link(out);
      std::vector<const facts::Unit *> units;
      for (const ExtractedUnit &unit : out)
        units.push_back(&unit.unit);
      return analysis::Program::link(units);
    };
    std::unique_ptr<analysis::Program> program;
    double wall = seconds(), cpu = processCpuSeconds();
    std::vector<bool> more(jobs.size());
    TextIndex::Wanted names;
    if (candidateCount > 0) {
      // The names that matter are the link's: the same facts give the same names, so a round
      // that links the facts an earlier run's round linked takes that round's names.
      std::string key = roundKey(out, filter, settings.cache);
      std::optional<analysis::NamesThatMatter> found;
      if (!key.empty())
        if (std::optional<std::string> value = settings.cache->recall(key))
          found = decodeNames(*value);
      if (!found) {
        namesWall += seconds() - wall;
        namesCpu += processCpuSeconds() - cpu;
        program = link();
        wall = seconds(), cpu = processCpuSeconds();
        found = analysis::namesThatMatter(*program);
        if (!key.empty())
          settings.cache->remember(key, encodeNames(*found));
      }
      names = text.withMacros(
          {text.idsOf(found->used), text.idsOf(found->defined), text.idsOf(found->fields), {}});
      more = text.mentioning(names);
    }
    bool fresh = false;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (!more[j] || wanted[j] || done[j] || !parseable(j))
        continue;
      if (explain)
        llvm::errs() << "afunix-check: prefilter: round " << rounds + 1 << ": " << jobs[j].file
                     << ": names " << text.mentionOf(j, names) << "\n";
      wanted[j] = fresh = true;
    }
    namesWall += seconds() - wall;
    namesCpu += processCpuSeconds() - cpu;
    linksSpared += fresh && !program;
    if (!fresh) {
      // Nothing new to parse: this program holds the final units, the one the run judges.
      if (filter.program)
        *filter.program = program ? std::move(program) : link();
      break;
    }
  }
  std::size_t skipped = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (done[j] || !parseable(j))
      continue;
    ++skipped;
    if (settings.progress)
      settings.progress(++finished, total, jobs[j].file, false);
  }
  if (settings.stats) {
    settings.stats->phases.push_back({"prefilter names", namesWall, namesCpu, currentRssKiB()});
    settings.stats->prefilterRounds += rounds;
    settings.stats->prefilterLinksSpared += linksSpared;
    settings.stats->prefilterSkipped += skipped;
    settings.stats->prefilterFilesRead += text.filesRead();
    settings.stats->prefilterFilesByStamp += text.filesKnownByStamp();
  }
  return rounds;
}

} // namespace

std::vector<ExtractedUnit> extractRelevantUnits(const std::vector<CompileJob> &jobs,
                                                const std::vector<const analysis::ProjectOptions *> &project,
                                                const ExtractionSettings &settings,
                                                const PrefilterSettings &filter) {
  if (!filter.enabled || !settings.extract || jobs.empty())
    return extractUnits(jobs, project, settings);

  PhaseTimer scanTimer(settings.stats, "prefilter");
  TextIndex text(jobs, {}, settings.jobs, settings.cache);
  // The vocabulary of every distinct set of options (per-directory configurations differ).
  std::set<std::string> vocabulary;
  std::set<std::string> fingerprints;
  for (const analysis::ProjectOptions *options : project)
    if (fingerprints.insert(options->extractionFingerprint()).second) {
      std::set<std::string> words = analysis::socketVocabulary(*options);
      vocabulary.insert(words.begin(), words.end());
    }
  bool explain = explaining();
  TextIndex::Wanted vocabularyIds;
  vocabularyIds.used = text.idsOf(vocabulary);
  vocabularyIds = text.withMacros(std::move(vocabularyIds));
  std::vector<bool> wanted = text.mentioning(vocabularyIds);
  std::size_t seeds = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (!filter.parseable.empty() && !filter.parseable[j])
      continue;
    if (explain)
      llvm::errs() << "afunix-check: prefilter: " << jobs[j].file << ": "
                   << (wanted[j] ? "names " + text.mentionOf(j, vocabularyIds)
                       : text.opaque(j) ? std::string("a computed #include, an unreadable file or a \"header\" not found")
                       : j < filter.always.size() && filter.always[j] ? std::string("checked")
                                                                      : std::string("not yet"))
                   << "\n";
    wanted[j] = wanted[j] || text.opaque(j) || (j < filter.always.size() && filter.always[j]);
    seeds += wanted[j];
  }
  scanTimer.stop();
  if (settings.stats)
    settings.stats->prefilterSeeds += seeds;

  // Every job starts as a skipped unit; a parse replaces it. So each round links the units the
  // run will judge if nothing more is parsed, and the last round's program is the run's.
  std::vector<ExtractedUnit> out;
  out.reserve(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j)
    out.push_back(skippedUnit(jobs[j], *project[j]));
  std::vector<bool> done(jobs.size());
  runRounds(jobs, project, settings, filter, text, out, done, std::move(wanted), explain);
  return out;
}

void completeRelevantUnits(const std::vector<CompileJob> &jobs,
                           const std::vector<const analysis::ProjectOptions *> &project,
                           const ExtractionSettings &settings, const PrefilterSettings &filter,
                           std::vector<ExtractedUnit> &units) {
  std::vector<bool> done(jobs.size());
  bool any = false;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    done[j] = !units[j].unit.skipped;
    any |= !done[j];
  }
  if (!any)
    return;
  PhaseTimer scanTimer(settings.stats, "prefilter");
  TextIndex text(jobs, done, settings.jobs, settings.cache); // the skipped files' text only
  scanTimer.stop();
  runRounds(jobs, project, settings, filter, text, units, done, std::vector<bool>(jobs.size()),
            explaining());
}

} // namespace afunix::check
