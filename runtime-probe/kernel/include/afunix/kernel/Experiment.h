// One kernel behaviour = one experiment: set up real sockets, act, observe, tear down, and return an
// Observation. The report is the list of observations; the tests assert on the same functions.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace afunix::kernel {

struct Value {
  enum class Kind { Null, Bool, Int, Real, Text };
  Kind kind = Kind::Null;
  bool boolean = false;
  long long integer = 0;
  double real = 0;
  std::string text;

  static Value null() { return {}; }
  static Value of(bool b) { Value v; v.kind = Kind::Bool; v.boolean = b; return v; }
  static Value of(int i) { return of(static_cast<long long>(i)); }
  static Value of(long long i) { Value v; v.kind = Kind::Int; v.integer = i; return v; }
  static Value of(double d) { Value v; v.kind = Kind::Real; v.real = d; return v; }
  static Value of(std::string s) { Value v; v.kind = Kind::Text; v.text = std::move(s); return v; }
  static Value of(const char *s) { return of(std::string(s)); }

  bool isNull() const { return kind == Kind::Null; }
  std::string toJson() const;
  std::string toText() const;
};

enum class Status { Ok, Skipped, TimedOut, Failed };
const char *statusName(Status status);

struct Observation {
  std::string experiment;
  Status status = Status::Ok;
  std::string reason; // why it was skipped, failed or timed out
  double seconds = 0;
  std::vector<std::pair<std::string, Value>> values; // dotted report keys: "creds.late_passcred"
  std::vector<std::string> evidence;                 // what was done and seen, one line each
  std::vector<std::string> implications;             // what it means for programs on this kernel
  std::vector<std::string> rules;                    // catalog ids that matter given the result
  // What the kernel did, in one sentence with no timing in it: the same on every run on one
  // kernel. The rule pages quote it beside each claim (a test re-runs the experiment and compares).
  std::string verdict;

  void set(const std::string &key, Value value);
  const Value *get(std::string_view key) const;
  void note(std::string line) { evidence.push_back(std::move(line)); }
  void implies(std::string text, std::initializer_list<const char *> ruleIds = {});
  void skip(std::string why) { status = Status::Skipped; reason = std::move(why); }
  void fail(std::string why) { status = Status::Failed; reason = std::move(why); }
};

std::string serialize(const Observation &observation);
bool deserialize(std::string_view text, Observation &out);

struct Isolation {
  double timeoutSeconds = 30;
  bool privateNetwork = true; // unshare(CLONE_NEWNET) in the child when permitted
};

// Runs `experiment` in a forked child in its own process group (and network namespace when
// permitted) and returns what it observed. A child still running at the deadline is killed with
// its whole process group and reported as timed out; every child is reaped before returning.
Observation runIsolated(const std::string &name, const std::function<Observation()> &experiment,
                        const Isolation &isolation);

// Serialises what shares the kernel's in-flight accounting (per user, and the GC's global count)
// between afunix-probe processes on this machine: the ETOOMANYREFS and GC experiments, bench gc.
// The lock is an abstract AF_UNIX address bound in the caller's network namespace (released when
// the process dies, nothing to clean up). Waits up to `timeoutSeconds` for another holder.
class InflightLock {
public:
  explicit InflightLock(double timeoutSeconds);
  ~InflightLock();
  InflightLock(const InflightLock &) = delete;
  InflightLock &operator=(const InflightLock &) = delete;
  bool held() const { return fd_ >= 0; }
  double waitedSeconds() const { return waited_; }
  static const char *name(); // the abstract address, for messages

private:
  int fd_ = -1;
  double waited_ = 0;
};

// Entries of /proc/self/fd (excluding the directory handle used to count them); -1 on error.
int countOpenFds();
// True when this process has no child left to reap (waitpid(-1) says ECHILD).
bool noChildrenLeft();

// "EINVAL" for EINVAL; "errno 1234" for unknown values.
std::string errnoName(int err);

} // namespace afunix::kernel
