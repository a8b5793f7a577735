// Per-process reports are JSON (a subset of YAML), read with yaml-cpp and re-emitted as one
// summary: every process's own report, then totals (findings per rule, summed counters, merged
// latency histograms).
#include "RunMerge.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <dirent.h>
#include <map>
#include <sstream>

namespace afunix::probe {

namespace {

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c == '\n')
      out += "\\n";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

// yaml-cpp keeps whether a scalar was quoted: quoted ones are strings, plain ones numbers/bools.
void toJson(const YAML::Node &node, std::string &out) {
  switch (node.Type()) {
  case YAML::NodeType::Map: {
    out += '{';
    bool first = true;
    for (const auto &kv : node) {
      if (!first)
        out += ',';
      first = false;
      out += jsonString(kv.first.as<std::string>()) + ':';
      toJson(kv.second, out);
    }
    out += '}';
    break;
  }
  case YAML::NodeType::Sequence: {
    out += '[';
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (i)
        out += ',';
      toJson(node[i], out);
    }
    out += ']';
    break;
  }
  case YAML::NodeType::Scalar:
    out += node.Tag() == "!" ? jsonString(node.Scalar()) : node.Scalar();
    break;
  default:
    out += "null";
  }
}

struct Hist {
  std::string call, cls;
  uint64_t count = 0;
  std::vector<uint64_t> buckets;
};

// bcc funclatency's print_log2_hist.
void printHistogram(std::ostringstream &out, const std::vector<uint64_t> &buckets) {
  int last = 1;
  uint64_t max = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b])
      last = std::max<int>(last, static_cast<int>(b));
    max = std::max(max, buckets[b]);
  }
  out << "     nsecs               : count     distribution\n";
  char line[160];
  for (int b = 1; b <= last; ++b) {
    uint64_t low = (1ull << b) >> 1, high = (1ull << b) - 1;
    if (low == high)
      --low;
    uint64_t value = buckets[b] + (b == 1 ? buckets[0] : 0);
    int stars = max ? static_cast<int>(value * 40 / max) : 0;
    std::string bar(static_cast<std::size_t>(stars), '*');
    std::snprintf(line, sizeof line, "%10llu -> %-10llu : %-8llu |%-40s|\n", static_cast<unsigned long long>(low),
                  static_cast<unsigned long long>(high), static_cast<unsigned long long>(value), bar.c_str());
    out << line;
  }
}

struct Process {
  YAML::Node report;
  std::string raw;
  std::string file;
};

} // namespace

std::string mergeReports(const RunSummaryInput &in, const std::string &format, std::vector<std::string> &problems) {
  std::vector<Process> processes;
  if (DIR *dir = opendir(in.reportDir.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.rfind("afunix-probe.", 0) != 0 || name.size() < 5 || name.substr(name.size() - 5) != ".json")
        continue;
      std::string path = in.reportDir + "/" + name;
      try {
        YAML::Node node = YAML::LoadFile(path);
        if (!node.IsMap() || !node["process"] || !node["version"])
          throw YAML::Exception(YAML::Mark(), "not an afunix-probe report");
        if (node["process"]["start_ns"].as<uint64_t>() < in.launchedNs)
          continue; // an earlier run's report in a reused --out directory
        processes.push_back({node, "", path});
      } catch (const std::exception &error) {
        problems.push_back("cannot read report " + path + ": " + error.what());
      }
    }
    closedir(dir);
  } else
    problems.push_back("cannot read report directory " + in.reportDir);
  // Ordered by start time. YAML::Node assignment writes through to the shared node, so the nodes
  // themselves are never moved around: a sorted list of pointers is.
  std::vector<const Process *> ordered;
  for (const auto &p : processes)
    ordered.push_back(&p);
  std::sort(ordered.begin(), ordered.end(), [](const Process *a, const Process *b) {
    return a->report["process"]["start_ns"].as<uint64_t>() < b->report["process"]["start_ns"].as<uint64_t>();
  });

  // Totals.
  std::map<std::string, std::pair<uint64_t, uint64_t>> ruleTotals; // rule -> (count, processes)
  std::map<std::string, int64_t> counters;
  std::map<std::pair<std::string, std::string>, Hist> hists;
  uint64_t fixes = 0;
  for (const Process *pp : ordered) {
    const Process &p = *pp;
    std::map<std::string, int> seen;
    for (const auto &f : p.report["findings"]) {
      auto &t = ruleTotals[f["rule"].as<std::string>()];
      t.first += f["count"].as<uint64_t>();
      if (!seen[f["rule"].as<std::string>()]++)
        ++t.second;
    }
    fixes += p.report["fixes"] ? p.report["fixes"].size() : 0;
    for (const auto &kv : p.report["counters"]) {
      std::string key = kv.first.as<std::string>();
      int64_t value = kv.second.as<int64_t>();
      if (key == "fds_in_flight_high_water")
        counters[key] = std::max(counters[key], value);
      else
        counters[key] += value;
    }
    for (const auto &h : p.report["histograms"]) {
      Hist &m = hists[{h["call"].as<std::string>(), h["class"].as<std::string>()}];
      m.call = h["call"].as<std::string>();
      m.cls = h["class"].as<std::string>();
      m.count += h["count"].as<uint64_t>();
      const auto &b = h["log2_ns"];
      m.buckets.resize(std::max<std::size_t>(m.buckets.size(), b.size()));
      for (std::size_t i = 0; i < b.size(); ++i)
        m.buckets[i] += b[i].as<uint64_t>();
    }
  }

  std::ostringstream out;
  if (format == "json") {
    std::string s = "{\"version\":1,\"command\":[";
    for (std::size_t i = 0; i < in.command.size(); ++i)
      s += (i ? "," : "") + jsonString(in.command[i]);
    s += "],\"exit_status\":" + std::to_string(in.exitStatus) + ",\"library\":" + jsonString(in.library) +
         ",\"report_dir\":" + jsonString(in.reportDir) + ",\"processes\":[";
    for (std::size_t i = 0; i < ordered.size(); ++i) {
      if (i)
        s += ',';
      toJson(ordered[i]->report, s);
    }
    s += "],\"totals\":{\"processes\":" + std::to_string(processes.size()) + ",\"findings\":[";
    bool first = true;
    for (const auto &[rule, t] : ruleTotals) {
      s += (first ? "" : ",") + std::string("{\"rule\":") + jsonString(rule) + ",\"count\":" + std::to_string(t.first) +
           ",\"processes\":" + std::to_string(t.second) + "}";
      first = false;
    }
    s += "],\"fixes\":" + std::to_string(fixes) + ",\"counters\":{";
    first = true;
    for (const auto &[key, value] : counters) {
      s += (first ? "" : ",") + jsonString(key) + ":" + std::to_string(value);
      first = false;
    }
    s += "},\"histograms\":[";
    first = true;
    for (const auto &[key, h] : hists) {
      s += (first ? "" : ",") + std::string("{\"call\":") + jsonString(h.call) + ",\"class\":" + jsonString(h.cls) +
           ",\"count\":" + std::to_string(h.count) + ",\"log2_ns\":[";
      for (std::size_t i = 0; i < h.buckets.size(); ++i)
        s += (i ? "," : "") + std::to_string(h.buckets[i]);
      s += "]}";
      first = false;
    }
    s += "]}}\n";
    return s;
  }

  out << "afunix-probe run: " << processes.size() << " process image(s), exit status " << in.exitStatus << "\n";
  for (const Process *pp : ordered) {
    const Process &p = *pp;
    const auto &proc = p.report["process"];
    out << "\npid " << proc["pid"].as<std::string>() << " (ppid " << proc["ppid"].as<std::string>() << ") "
        << proc["exe"].as<std::string>() << " [" << p.report["reason"].as<std::string>() << "]\n";
    if (!p.report["findings"].size() && !p.report["fixes"].size())
      out << "  no findings\n";
    for (const char *section : {"findings", "fixes"})
      for (const auto &f : p.report[section]) {
        out << "  " << (section[1] == 'i' && section[2] == 'x' ? "fix" : "finding") << ": " << f["rule"].as<std::string>()
            << " [" << f["variant"].as<std::string>() << "]";
        if (f["fd"].as<int>() >= 0)
          out << " fd " << f["fd"].as<int>();
        out << ", " << f["count"].as<std::string>() << "x\n    " << f["message"].as<std::string>() << "\n    evidence:";
        for (const auto &kv : f["evidence"])
          out << " " << kv.first.as<std::string>() << "=" << kv.second.as<std::string>();
        out << "\n";
      }
    const auto &c = p.report["counters"];
    out << "  calls: send " << c["send_calls"].as<std::string>() << ", recv " << c["recv_calls"].as<std::string>()
        << ", write " << c["write_calls"].as<std::string>() << ", read " << c["read_calls"].as<std::string>()
        << "; fds in flight high-water " << c["fds_in_flight_high_water"].as<std::string>() << "\n";
  }
  out << "\ntotals:\n";
  if (ruleTotals.empty())
    out << "  no findings\n";
  for (const auto &[rule, t] : ruleTotals)
    out << "  " << rule << ": " << t.first << " occurrence(s) in " << t.second << " process image(s)\n";
  if (fixes)
    out << "  --fix passcred applied at " << fixes << " place(s)\n";
  out << "  counters:";
  for (const auto &[key, value] : counters)
    out << " " << key << "=" << value;
  out << "\n";
  for (const auto &[key, h] : hists) {
    out << "\n" << h.call << " (" << h.cls << "): " << h.count << " calls";
    uint64_t timed = 0;
    for (auto b : h.buckets)
      timed += b;
    // Latency is sampled (AFUNIX_PROBE_TIMING_SAMPLE): say how many calls the histogram holds.
    if (timed && timed != h.count)
      out << ", " << timed << " timed";
    out << "\n";
    if (timed)
      printHistogram(out, h.buckets);
  }
  return out.str();
}

} // namespace afunix::probe
