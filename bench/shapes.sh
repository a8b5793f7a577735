#!/usr/bin/env bash
# Source shapes that once made afunix-check's cost grow faster than the file (issue 14, item 13):
# one function with N goto labels, a switch with N cases, N socket()/bind()/setsockopt()
# triples on one reassigned variable (N findings), and (C++) a member copied by a setter between
# two pointers to N objects each. Each shape is generated at N and 4N; for each,
# afunix-check's CPU time (user + sys) and clang-19 -fsyntax-only's on the same file, in the same
# invocation, median of --repeat runs, and:
#
#   ratio    afunix-check / clang-19 at that size (what the checker adds to a parse)
#   growth   afunix-check at 4N / afunix-check at N: ~4 is linear, ~16 quadratic
#
#   bench/shapes.sh [--repeat R] [--size N] [--format text|sarif]
#
# --size (default 5000) is N of the triples shape; the label and case shapes use N/5 and 3N/5,
# the copies shape N/80 up to 64 (4N: 256 objects, as many as a pointer's set holds before it is
# widened).
# --format makes the checker print its findings that way (SARIF once cost a scan of the file per
# fix-it). AFUNIX_CHECK (default build/bin/afunix-check), CLANG (default clang-19).
set -euo pipefail
cd "$(dirname "$0")/.."
checker="$(realpath "${AFUNIX_CHECK:-build/bin/afunix-check}")"
clang="${CLANG:-clang-19}"
repeat=3
size=5000
format=text
while (($#)); do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --format) format="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "shapes: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ "$repeat" =~ ^[1-9][0-9]*$ && "$size" =~ ^[1-9][0-9]*$ ]] || { echo "shapes: --repeat and --size take positive numbers" >&2; exit 2; }
[ -x "$checker" ] || { echo "shapes: $checker not built (scripts/build.sh afunix-check)" >&2; exit 2; }
command -v "$clang" >/dev/null || { echo "shapes: $clang not found" >&2; exit 2; }

exec python3 - "$checker" "$clang" "$repeat" "$size" "$format" <<'PY'
import os, resource, statistics, subprocess, sys, tempfile

checker, clang, repeat, size, fmt = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

def gotos(n):
    body = "".join(f" L{i}: if (x == {i}) goto L{(i * 7 + 3) % n};\n" for i in range(n))
    return ("#include <sys/socket.h>\nint f(int x) {\n int s = socket(AF_UNIX, SOCK_STREAM, 0);\n" + body +
            " listen(s, 1);\n int one = 1;\n setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);\n return s;\n}\n")

def cases(n):
    body = "".join(f" case {i}: x += {i};\n" for i in range(n))
    return ("#include <sys/socket.h>\nint f(int x) {\n int s = socket(AF_UNIX, SOCK_STREAM, 0), one = 1;\n switch (x) {\n" +
            body + " }\n listen(s, 1);\n setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);\n return s;\n}\n")

def triples(n):
    line = (" s = socket(AF_UNIX, SOCK_DGRAM, 0); bind(s, (struct sockaddr *)&a, sizeof a);"
            " setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);\n")
    return ("#include <sys/socket.h>\n#include <sys/un.h>\nint f(void) {\n struct sockaddr_un a = {AF_UNIX};\n"
            " int one = 1, s;\n" + line * n + " return s;\n}\n")

def copies(n):
    # A setter that copies a member between two pointers, each to n objects (C++): per call, from
    # every object to every object.
    head = ("#include <sys/socket.h>\nstruct Handle {\n  int fd_ = -1;\n"
            "  void take(const Handle &other) { fd_ = other.fd_; }\n};\n"
            "struct Pair {\n  Handle *to;\n  const Handle *from;\n};\n")
    objects = ("".join(f"Handle h{i};\n" for i in range(n)) +
               "".join(f"Pair p{i} = {{&h{i}, &h{(i + 1) % n}}};\n" for i in range(n)))
    calls = "".join(f"  copy_all(&p{i});\n" for i in range(n))
    return (head + objects + "void copy_all(Pair *p) {\n" + "  p->to->take(*p->from);\n" * 20 + "}\n"
            "int f(void) {\n  int one = 1;\n  h0.fd_ = socket(AF_UNIX, SOCK_STREAM, 0);\n" + calls +
            "  listen(h1.fd_, 1);\n  setsockopt(h1.fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);\n  return 0;\n}\n")

def cpu(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done

scratch = tempfile.mkdtemp(prefix="afunix-shapes-")
shapes = [("goto labels", gotos, max(size // 5, 10)), ("switch cases", cases, max(3 * size // 5, 10)),
          ("bind/setsockopt triples", triples, size),
          ("copies between objects", copies, max(min(size // 80, 64), 8))]
print(f"afunix-check {checker}, {clang}; CPU seconds, median of {repeat}; checker output --format={fmt}")
print(f"{'shape':<26}{'N':>8}{'clang-19':>10}{'checker':>10}{'ratio':>8}{'growth':>8}  findings")
worst = 0.0
for name, make, n in shapes:
    previous = None
    for count in (n, 4 * n):
        path = os.path.join(scratch, f"{make.__name__}-{count}.{'cc' if make is copies else 'c'}")
        with open(path, "w") as f:
            f.write(make(count))
        clang_times, checker_times, findings = [], [], "?"
        for _ in range(repeat):
            t, done = cpu([clang, "-fsyntax-only", path])
            if done.returncode != 0:
                sys.exit(f"shapes: {clang} failed on {path}: {done.stderr.strip()}")
            clang_times.append(t)
            t, done = cpu([checker, "--no-cache", f"--format={fmt}", path, "--"])
            if done.returncode not in (0, 1):
                sys.exit(f"shapes: afunix-check exited {done.returncode} on {path}: {done.stderr.strip()}")
            checker_times.append(t)
            summary = [l for l in done.stderr.splitlines() if "finding" in l]
            findings = summary[-1].split(": ", 1)[-1].split(" in ")[0] if summary else "?"
        c, a = statistics.median(clang_times), statistics.median(checker_times)
        growth = f"{a / previous:.1f}" if previous else "-"
        if previous:
            worst = max(worst, a / previous)
        previous = a
        print(f"{name:<26}{count:>8}{c:>10.2f}{a:>10.2f}{a / c:>8.2f}{growth:>8}  {findings}")
print(f"worst growth at 4x the size: {worst:.1f} (linear ~4, quadratic ~16)")
PY
