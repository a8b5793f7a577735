// Environment parsing. Runs once at load, before main; a bad value gives one line on stderr and
// the default, never a change in the program's behaviour.
#include "ProbeCore.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace afunix::probe {

namespace {
constinit Config gConfig;

void append(char *out, std::size_t size, const char *a, const char *b = "", const char *c = "") {
  std::size_t used = std::strlen(out);
  for (const char *part : {"afunix-probe: ", a, b, c, "\n"})
    for (; *part && used + 1 < size; ++part)
      out[used++] = *part;
  out[used] = 0;
}

// Whole-string unsigned decimal; false on anything else (sign, spaces, suffixes, overflow).
bool parseUnsigned(const char *text, uint64_t &value) {
  if (!text || !*text)
    return false;
  uint64_t v = 0;
  for (const char *p = text; *p; ++p) {
    if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
      return false;
    v = v * 10 + static_cast<uint64_t>(*p - '0');
  }
  value = v;
  return true;
}
} // namespace

Config &config() { return gConfig; }

bool parseConfig(GetEnvFn getenvFn, Config &c, char *messages, std::size_t size) {
  c = Config{};
  if (size)
    messages[0] = 0;
  bool ok = true;
  uint64_t number = 0;
  if (const char *timing = getenvFn("AFUNIX_PROBE_TIMING")) {
    if (!std::strcmp(timing, "0"))
      c.timing = false;
    else if (std::strcmp(timing, "1") != 0) {
      append(messages, size, "AFUNIX_PROBE_TIMING must be 0 or 1, got '", timing, "'; timing stays on");
      ok = false;
    }
  }
  if (const char *sample = getenvFn("AFUNIX_PROBE_TIMING_SAMPLE"); sample && *sample) {
    if (parseUnsigned(sample, number) && number >= 1 && number <= 65536 && !(number & (number - 1)))
      c.timingSample = static_cast<uint32_t>(number);
    else {
      append(messages, size, "AFUNIX_PROBE_TIMING_SAMPLE must be a power of two from 1 to 65536, got '",
             sample, "'; timing one call in 16");
      ok = false;
    }
  }
  if (const char *fix = getenvFn("AFUNIX_PROBE_FIX"); fix && *fix) {
    if (!std::strcmp(fix, "passcred"))
      c.fixPasscred = true;
    else {
      append(messages, size, "AFUNIX_PROBE_FIX must be 'passcred', got '", fix, "'; no fix applied");
      ok = false;
    }
  }
  if (const char *format = getenvFn("AFUNIX_PROBE_FORMAT"); format && *format) {
    if (!std::strcmp(format, "text"))
      c.reportJson = false, c.reportText = true;
    else if (!std::strcmp(format, "both"))
      c.reportText = true;
    else if (std::strcmp(format, "json") != 0) {
      append(messages, size, "AFUNIX_PROBE_FORMAT must be json, text or both, got '", format, "'; using json");
      ok = false;
    }
  }
  if (const char *slow = getenvFn("AFUNIX_PROBE_SLOW_NS"); slow) {
    if (parseUnsigned(slow, number) && number > 0)
      c.slowNs = number;
    else {
      append(messages, size, "AFUNIX_PROBE_SLOW_NS must be a positive number of nanoseconds, got '", slow,
             "'; using 100000");
      ok = false;
    }
  }
  if (const char *interval = getenvFn("AFUNIX_PROBE_INTERVAL"); interval && *interval) {
    if (parseUnsigned(interval, number) && number <= 31536000)
      c.intervalNs = number * 1000000000ull;
    else {
      append(messages, size, "AFUNIX_PROBE_INTERVAL must be a whole number of seconds, got '", interval,
             "'; reporting at exit only");
      ok = false;
    }
  }
  if (const char *stacks = getenvFn("AFUNIX_PROBE_STACKS"); stacks && *stacks) {
    if (!std::strcmp(stacks, "0"))
      c.stacks = false;
    else if (std::strcmp(stacks, "1") != 0) {
      append(messages, size, "AFUNIX_PROBE_STACKS must be 0 or 1, got '", stacks, "'; stacks stay on");
      ok = false;
    }
  }
  if (const char *sites = getenvFn("AFUNIX_PROBE_SITES"); sites && *sites) {
    if (!std::strcmp(sites, "1"))
      c.sites = true;
    else if (std::strcmp(sites, "0") != 0) {
      append(messages, size, "AFUNIX_PROBE_SITES must be 0 or 1, got '", sites, "'; call sites not recorded");
      ok = false;
    }
  }
  if (const char *tmp = getenvFn("TMPDIR"); tmp && tmp[0] == '/' && std::strlen(tmp) < sizeof c.fallbackDir)
    std::memcpy(c.fallbackDir, tmp, std::strlen(tmp) + 1);
  if (const char *dir = getenvFn("AFUNIX_PROBE_DIR"); dir && *dir) {
    struct stat st;
    int savedErrno = errno;
    if (std::strlen(dir) >= sizeof c.dir - 64) {
      append(messages, size, "AFUNIX_PROBE_DIR is too long: '", dir, "'; reporting on stderr");
      ok = false;
    } else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      append(messages, size, "AFUNIX_PROBE_DIR '", dir, "' is not a directory; reporting on stderr");
      ok = false;
    } else if (access(dir, W_OK | X_OK) != 0) {
      append(messages, size, "AFUNIX_PROBE_DIR '", dir, "' is not writable; reporting on stderr");
      ok = false;
    } else {
      std::memcpy(c.dir, dir, std::strlen(dir) + 1);
      c.dirUsable = true;
    }
    errno = savedErrno;
  }
  return ok;
}

} // namespace afunix::probe
