#include "Symbolizer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace afunix::probe {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool executable(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

} // namespace

std::string findInPath(const std::vector<std::string> &names) {
  const char *path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (const std::string &name : names) {
    if (name.find('/') != std::string::npos) {
      if (executable(name))
        return name;
      continue;
    }
    std::stringstream split(dirs);
    std::string dir;
    while (std::getline(split, dir, ':'))
      if (executable((dir.empty() ? "." : dir) + "/" + name))
        return (dir.empty() ? "." : dir) + "/" + name;
  }
  return "";
}

bool runTool(const std::vector<std::string> &argv, const std::string &input, std::string &output) {
  char inputPath[] = "/tmp/afunix-probe-symbolize-XXXXXX";
  int in = mkstemp(inputPath);
  if (in < 0)
    return false;
  unlink(inputPath);
  for (std::size_t done = 0; done < input.size();) {
    ssize_t n = write(in, input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      close(in);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  lseek(in, 0, SEEK_SET);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return false;
  }
  output.clear();
  char buf[65536];
  for (;;) {
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    output.append(buf, static_cast<std::size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string buildIdOfFile(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return "";
  std::string result;
  Elf64_Ehdr eh;
  if (pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) && !std::memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 128) {
    for (int i = 0; i < eh.e_phnum && result.empty(); ++i) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, static_cast<off_t>(eh.e_phoff + i * sizeof ph)) != static_cast<ssize_t>(sizeof ph))
        break;
      if (ph.p_type != PT_NOTE || ph.p_filesz > (1 << 16))
        continue;
      std::vector<unsigned char> notes(ph.p_filesz);
      if (pread(fd, notes.data(), notes.size(), static_cast<off_t>(ph.p_offset)) != static_cast<ssize_t>(notes.size()))
        continue;
      for (std::size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
        Elf64_Nhdr nh;
        std::memcpy(&nh, notes.data() + at, sizeof nh);
        std::size_t name = at + sizeof nh, desc = name + ((nh.n_namesz + 3) & ~3u);
        std::size_t next = desc + ((nh.n_descsz + 3) & ~3u);
        if (next > notes.size())
          break;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !std::memcmp(notes.data() + name, "GNU", 4)) {
          char byte[3];
          for (std::size_t b = 0; b < nh.n_descsz; ++b) {
            std::snprintf(byte, sizeof byte, "%02x", notes[desc + b]);
            result += byte;
          }
          break;
        }
        at = next;
      }
    }
  }
  close(fd);
  return result;
}

Symbolizer::Symbolizer(const std::string &tool) {
  if (tool == "none") {
    notes_.push_back("symbolisation is off (AFUNIX_PROBE_SYMBOLIZER=none): addresses are module+offset");
    return;
  }
  tool_ = tool.empty() ? findInPath({"llvm-symbolizer-19", "llvm-symbolizer", "addr2line"}) : findInPath({tool});
  if (tool_.empty()) {
    notes_.push_back(tool.empty()
                         ? "no symbolizer found (llvm-symbolizer-19, llvm-symbolizer or addr2line): addresses are "
                           "module+offset; install llvm-19 or binutils to see function, file and line"
                         : "symbolizer '" + tool + "' not found or not executable: addresses are module+offset");
    return;
  }
  toolName_ = tool_.substr(tool_.rfind('/') + 1);
  llvm_ = toolName_.find("addr2line") == std::string::npos;
}

void Symbolizer::add(const std::string &module, const std::string &buildId, uint64_t offset, bool returnAddress) {
  Key key{module, offset};
  if (!done_.count(key))
    pending_[key] = Pending{buildId, returnAddress};
}

const SymbolizedAddress *Symbolizer::find(const std::string &module, uint64_t offset) const {
  auto it = done_.find(Key{module, offset});
  return it == done_.end() ? nullptr : &it->second;
}

void Symbolizer::run() {
  std::vector<std::pair<Key, Pending>> items;
  std::map<std::string, bool> usable; // module path -> symbolise it
  for (const auto &[key, pending] : pending_) {
    SymbolizedAddress &a = done_[key];
    a.module = key.module;
    a.offset = key.offset;
    auto [it, fresh] = usable.try_emplace(key.module, false);
    if (fresh) {
      if (access(key.module.c_str(), R_OK) != 0) {
        notes_.push_back(key.module + ": not readable here, its frames stay module+offset");
      } else if (!pending.buildId.empty() && buildIdOfFile(key.module) != pending.buildId) {
        // Lines from another build would be wrong lines: better none.
        notes_.push_back(key.module + ": changed since the run (build-id " + pending.buildId +
                         " then, " + (buildIdOfFile(key.module).empty() ? "none" : buildIdOfFile(key.module)) +
                         " now): its frames stay module+offset");
      } else {
        it->second = true;
      }
    }
    if (it->second && !tool_.empty())
      items.emplace_back(key, pending);
  }
  pending_.clear();
  if (items.empty())
    return;
  if (llvm_)
    runLlvm(items);
  else
    runAddr2line(items);
}

void Symbolizer::runLlvm(const std::vector<std::pair<Key, Pending>> &items) {
  std::string input;
  for (const auto &[key, pending] : items) {
    std::string quoted = "\"";
    for (char c : key.module)
      quoted += c == '"' ? std::string("\\\"") : std::string(1, c);
    input += quoted + "\" " + hex(pending.returnAddress && key.offset ? key.offset - 1 : key.offset) + "\n";
  }
  std::string output;
  if (!runTool({tool_, "--output-style=JSON", "--inlining=true", "--demangle"}, input, output) &&
      output.empty()) {
    notes_.push_back(toolName_ + " failed: addresses are module+offset");
    return;
  }
  std::stringstream lines(output);
  std::string line;
  std::size_t i = 0;
  while (std::getline(lines, line) && i < items.size()) {
    if (line.empty() || line[0] != '{')
      continue;
    SymbolizedAddress &a = done_[items[i++].first];
    try {
      YAML::Node node = YAML::Load(line);
      const YAML::Node symbols = node["Symbol"];
      for (std::size_t s = 0; symbols && s < symbols.size(); ++s) {
        SourceFrame f;
        f.function = symbols[s]["FunctionName"].as<std::string>("");
        f.file = symbols[s]["FileName"].as<std::string>("");
        f.line = symbols[s]["Line"].as<unsigned>(0);
        f.column = symbols[s]["Column"].as<unsigned>(0);
        f.inlined = s + 1 < symbols.size();
        if (f.function == "??")
          f.function.clear();
        if (f.file == "??")
          f.file.clear();
        if (!f.function.empty() || !f.file.empty())
          a.frames.push_back(std::move(f));
      }
    } catch (const std::exception &) {
      // An unparseable answer leaves this address unsymbolised.
    }
  }
}

void Symbolizer::runAddr2line(const std::vector<std::pair<Key, Pending>> &items) {
  std::map<std::string, std::vector<const std::pair<Key, Pending> *>> byModule;
  for (const auto &item : items)
    byModule[item.first.module].push_back(&item);
  for (const auto &[module, list] : byModule) {
    std::vector<std::string> argv = {tool_, "-a", "-f", "-i", "-C", "-e", module};
    for (const auto *item : list)
      argv.push_back(hex(item->second.returnAddress && item->first.offset ? item->first.offset - 1 : item->first.offset));
    std::string output;
    if (!runTool(argv, "", output)) {
      notes_.push_back(toolName_ + " failed on " + module + ": its frames stay module+offset");
      continue;
    }
    // "0x...\nfunction\nfile:line\n[function\nfile:line\n]..." per address.
    std::stringstream lines(output);
    std::string line;
    SymbolizedAddress *current = nullptr;
    std::size_t next = 0;
    std::string function;
    bool haveFunction = false;
    while (std::getline(lines, line)) {
      if (line.rfind("0x", 0) == 0 && next < list.size() && !haveFunction) {
        current = &done_[list[next++]->first];
        continue;
      }
      if (!current)
        continue;
      if (!haveFunction) {
        function = line == "??" ? "" : line;
        haveFunction = true;
        continue;
      }
      haveFunction = false;
      SourceFrame f;
      f.function = function;
      std::size_t colon = line.rfind(':');
      std::string file = colon == std::string::npos ? line : line.substr(0, colon);
      std::string number = colon == std::string::npos ? "" : line.substr(colon + 1);
      number = number.substr(0, number.find_first_not_of("0123456789"));
      f.file = file == "??" ? "" : file;
      f.line = number.empty() ? 0 : static_cast<unsigned>(std::stoul(number));
      if (!current->frames.empty())
        current->frames.back().inlined = true;
      if (!f.function.empty() || !f.file.empty())
        current->frames.push_back(std::move(f));
    }
  }
}

} // namespace afunix::probe
