#include "ProbeReport.h"

#include "Json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace afunix::probe {

namespace {

struct Invalid {
  std::string what;
};

const YAML::Node need(const YAML::Node &node, const char *key, const std::string &where) {
  if (!node.IsMap())
    throw Invalid{where + " is not an object"};
  YAML::Node value = node[key];
  if (!value)
    throw Invalid{"missing key '" + where + (where.empty() ? "" : ".") + key + "'"};
  return value;
}

std::string joinKey(const std::string &where, const char *key) { return where.empty() ? key : where + "." + key; }

template <typename T> T number(const YAML::Node &node, const char *key, const std::string &where) {
  YAML::Node value = need(node, key, where);
  // Quoted scalars are strings, plain ones numbers (yaml-cpp keeps the tag).
  if (!value.IsScalar() || value.Tag() == "!")
    throw Invalid{"'" + joinKey(where, key) + "' is not a number"};
  T out{};
  if (!YAML::convert<T>::decode(value, out))
    throw Invalid{"'" + joinKey(where, key) + "' is out of range: " + value.Scalar()};
  return out;
}

std::string text(const YAML::Node &node, const char *key, const std::string &where) {
  YAML::Node value = need(node, key, where);
  if (!value.IsScalar())
    throw Invalid{"'" + joinKey(where, key) + "' is not a string"};
  return value.Scalar();
}

bool boolean(const YAML::Node &node, const char *key, const std::string &where) {
  YAML::Node value = need(node, key, where);
  bool out = false;
  if (!value.IsScalar() || !YAML::convert<bool>::decode(value, out))
    throw Invalid{"'" + joinKey(where, key) + "' is not true or false"};
  return out;
}

const YAML::Node list(const YAML::Node &node, const char *key, const std::string &where, bool optional = false) {
  if (optional && (!node.IsMap() || !node[key]))
    return YAML::Node(YAML::NodeType::Sequence);
  YAML::Node value = need(node, key, where);
  if (!value.IsSequence())
    throw Invalid{"'" + joinKey(where, key) + "' is not a list"};
  return value;
}

uint64_t hexNumber(const YAML::Node &node, const char *key, const std::string &where) {
  std::string s = text(node, key, where);
  if (s.size() < 3 || s.size() > 18 || s.compare(0, 2, "0x") != 0 ||
      s.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
    throw Invalid{"'" + joinKey(where, key) + "' is not a hex address: " + s};
  return std::stoull(s.substr(2), nullptr, 16);
}

CodeAddress address(const YAML::Node &node, const std::string &where) {
  CodeAddress a;
  a.pc = hexNumber(node, "pc", where);
  a.module = number<int>(node, "module", where);
  a.offset = hexNumber(node, "offset", where);
  return a;
}

SocketAddressText socketAddress(const YAML::Node &node, const std::string &where) {
  SocketAddressText a;
  a.kind = text(node, "kind", where);
  if (a.kind != "unnamed" && a.kind != "path" && a.kind != "abstract")
    throw Invalid{"'" + where + ".kind' is not unnamed, path or abstract"};
  if (a.kind != "unnamed")
    a.name = text(node, "name", where);
  return a;
}

SocketInfo socket(const YAML::Node &node, const std::string &where) {
  SocketInfo s;
  s.fd = number<int>(node, "fd", where);
  s.known = boolean(node, "known", where);
  if (!s.known)
    return s;
  s.family = text(node, "family", where);
  s.type = text(node, "type", where);
  s.role = text(node, "role", where);
  s.inode = number<uint64_t>(node, "inode", where);
  s.passcred = boolean(node, "passcred", where);
  s.listening = boolean(node, "listening", where);
  if (node["local"])
    s.local = socketAddress(node["local"], where + ".local");
  if (node["peer"])
    s.peer = socketAddress(node["peer"], where + ".peer");
  if (node["pair_fd"])
    s.pairFd = number<int>(node, "pair_fd", where);
  if (node["peer_pid"]) {
    s.peerPid = number<int64_t>(node, "peer_pid", where);
    s.peerUid = number<uint64_t>(node, "peer_uid", where);
    s.peerGid = number<uint64_t>(node, "peer_gid", where);
  }
  if (node["origin"]) {
    const YAML::Node origin = node["origin"];
    s.originHow = text(origin, "how", where + ".origin");
    s.origin = address(need(origin, "at", where + ".origin"), where + ".origin.at");
  }
  return s;
}

ReportFinding finding(const YAML::Node &node, const std::string &where) {
  ReportFinding f;
  f.rule = text(node, "rule", where);
  f.variant = text(node, "variant", where);
  f.fd = number<int>(node, "fd", where);
  f.count = number<uint64_t>(node, "count", where);
  f.message = text(node, "message", where);
  const YAML::Node evidence = need(node, "evidence", where);
  if (!evidence.IsMap())
    throw Invalid{"'" + where + ".evidence' is not an object"};
  for (const auto &kv : evidence) {
    if (!kv.second.IsScalar())
      throw Invalid{"'" + where + ".evidence." + kv.first.as<std::string>() + "' is not a value"};
    f.evidence.emplace_back(kv.first.as<std::string>(), kv.second.Scalar());
  }
  f.evidenceJson.clear();
  toJson(evidence, f.evidenceJson);
  if (node["site"])
    f.site = address(node["site"], where + ".site");
  const YAML::Node stack = list(node, "stack", where, true);
  for (std::size_t i = 0; i < stack.size(); ++i)
    f.stack.push_back(address(stack[i], where + ".stack[" + std::to_string(i) + "]"));
  if (node["socket"] && !node["socket"].IsNull())
    f.socket = socket(node["socket"], where + ".socket");
  return f;
}

} // namespace

int64_t ProcessReport::counter(const std::string &name) const {
  for (const auto &[key, value] : counters)
    if (key == name)
      return value;
  return 0;
}

bool ProcessReport::madeUnixCalls() const {
  if (!findings.empty() || !candidates.empty() || !fixes.empty())
    return true;
  for (const char *name : {"unix_sockets", "send_calls", "recv_calls", "write_calls", "read_calls", "accept_calls",
                           "connect_calls", "fds_sent"})
    if (counter(name))
      return true;
  return false;
}

const ReportModule *ProcessReport::module(int index) const {
  for (const auto &m : modules)
    if (m.index == index)
      return &m;
  return nullptr;
}

int ProcessReport::finality() const {
  if (reason == "running")
    return 0;
  if (reason == "interval")
    return 1;
  return 2;
}

bool readRegularFile(const std::string &path, std::size_t limit, std::string &out, std::string &error) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    error = errno == ELOOP ? "is a symbolic link (not followed)" : std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    error = "is not a regular file";
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > limit) {
    close(fd);
    error = "is larger than " + std::to_string(limit >> 20) + " MiB";
    return false;
  }
  out.clear();
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = std::strerror(errno);
      close(fd);
      return false;
    }
    if (n == 0)
      break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit) {
      close(fd);
      error = "grew past " + std::to_string(limit >> 20) + " MiB while being read";
      return false;
    }
  }
  close(fd);
  return true;
}

std::optional<ProcessReport> readProcessReport(const std::string &path, std::string &error) {
  std::string content;
  if (!readRegularFile(path, 64u << 20, content, error))
    return std::nullopt;
  try {
    YAML::Node node = YAML::Load(content);
    if (!node.IsMap())
      throw Invalid{"not a JSON object"};
    ProcessReport r;
    r.file = path;
    r.version = number<int>(node, "version", "");
    if (r.version != 1 && r.version != 2)
      throw Invalid{"version " + std::to_string(r.version) + " is not one this afunix-probe reads (1, 2)"};
    if (text(node, "tool", "") != "afunix-probe")
      throw Invalid{"not an afunix-probe report"};
    r.reason = text(node, "reason", "");
    const YAML::Node process = need(node, "process", "");
    r.pid = number<int>(process, "pid", "process");
    r.ppid = number<int>(process, "ppid", "process");
    if (process["uid"])
      r.uid = number<uint32_t>(process, "uid", "process");
    r.exe = text(process, "exe", "process");
    r.argv0 = text(process, "argv0", "process");
    r.startNs = number<uint64_t>(process, "start_ns", "process");
    auto findings = [&](const char *key, std::vector<ReportFinding> &out, bool optional) {
      const YAML::Node items = list(node, key, "", optional);
      for (std::size_t i = 0; i < items.size(); ++i)
        out.push_back(finding(items[i], std::string(key) + "[" + std::to_string(i) + "]"));
    };
    findings("findings", r.findings, false);
    findings("candidates", r.candidates, true);
    findings("fixes", r.fixes, true);
    const YAML::Node sent = list(node, "creds_sent_to", "", true);
    for (std::size_t i = 0; i < sent.size(); ++i) {
      int64_t pid = 0;
      if (!sent[i].IsScalar() || !YAML::convert<int64_t>::decode(sent[i], pid))
        throw Invalid{"'creds_sent_to' holds something that is not a pid"};
      r.credsSentTo.push_back(pid);
    }
    if (node["sites_recorded"])
      r.sitesRecorded = boolean(node, "sites_recorded", "");
    const YAML::Node sites = list(node, "sites", "", true);
    for (std::size_t i = 0; i < sites.size(); ++i) {
      std::string where = "sites[" + std::to_string(i) + "]";
      ReportSite site;
      site.call = text(sites[i], "call", where);
      site.count = number<uint64_t>(sites[i], "count", where);
      site.site = address(need(sites[i], "site", where), where + ".site");
      const YAML::Node stack = list(sites[i], "stack", where, true);
      for (std::size_t k = 0; k < stack.size(); ++k)
        site.stack.push_back(address(stack[k], where + ".stack[" + std::to_string(k) + "]"));
      r.sites.push_back(std::move(site));
    }
    const YAML::Node modules = list(node, "modules", "", true);
    for (std::size_t i = 0; i < modules.size(); ++i) {
      std::string where = "modules[" + std::to_string(i) + "]";
      r.modules.push_back({number<int>(modules[i], "index", where), text(modules[i], "path", where),
                           text(modules[i], "build_id", where)});
    }
    const YAML::Node counters = need(node, "counters", "");
    if (!counters.IsMap())
      throw Invalid{"'counters' is not an object"};
    for (const auto &kv : counters) {
      std::string key = kv.first.as<std::string>();
      int64_t value = 0;
      if (!kv.second.IsScalar() || kv.second.Tag() == "!" || !YAML::convert<int64_t>::decode(kv.second, value))
        throw Invalid{"counter '" + key + "' is not a number in range: " + (kv.second.IsScalar() ? kv.second.Scalar() : "")};
      r.counters.emplace_back(key, value);
    }
    const YAML::Node histograms = list(node, "histograms", "");
    for (std::size_t i = 0; i < histograms.size(); ++i) {
      std::string where = "histograms[" + std::to_string(i) + "]";
      ReportHistogram h;
      h.call = text(histograms[i], "call", where);
      h.cls = text(histograms[i], "class", where);
      h.count = number<uint64_t>(histograms[i], "count", where);
      const YAML::Node buckets = list(histograms[i], "log2_ns", where);
      if (buckets.size() > 64)
        throw Invalid{"'" + where + ".log2_ns' has " + std::to_string(buckets.size()) + " buckets"};
      for (std::size_t b = 0; b < buckets.size(); ++b) {
        uint64_t v = 0;
        if (!buckets[b].IsScalar() || !YAML::convert<uint64_t>::decode(buckets[b], v))
          throw Invalid{"'" + where + ".log2_ns' holds something that is not a count"};
        h.buckets.push_back(v);
      }
      r.histograms.push_back(std::move(h));
    }
    // Fds in flight over time (reports since the run HTML report; absent in older ones).
    if (const YAML::Node timeline = node["in_flight_timeline"]) {
      if (!timeline.IsMap())
        throw Invalid{"'in_flight_timeline' is not an object"};
      InFlightSeries series;
      series.periodNs = number<uint64_t>(timeline, "period_ns", "in_flight_timeline");
      const YAML::Node most = list(timeline, "most", "in_flight_timeline");
      if (series.periodNs == 0 || most.size() > 4096)
        throw Invalid{"'in_flight_timeline' has a zero period or too many periods"};
      for (std::size_t i = 0; i < most.size(); ++i) {
        int64_t v = 0;
        if (!most[i].IsScalar() || !YAML::convert<int64_t>::decode(most[i], v) || v < -1)
          throw Invalid{"'in_flight_timeline.most' holds something that is not a count"};
        series.most.push_back(v);
      }
      r.inFlight = std::move(series);
    }
    toJson(node, r.rawJson);
    return r;
  } catch (const Invalid &invalid) {
    error = invalid.what;
  } catch (const std::exception &e) {
    error = std::string("not valid JSON: ") + e.what();
  }
  return std::nullopt;
}

} // namespace afunix::probe
