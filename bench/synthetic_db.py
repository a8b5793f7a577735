#!/usr/bin/env python3
"""A synthetic C project with a compile database, made at bench time (never committed).

    bench/synthetic_db.py DIR [--tus N] [--socket-every K] [--functions F] [--sockets-apart]
                          [--own-include-order]

Writes DIR/src/unit_<i>.c and its header DIR/include/unit_<i>.h for i in 0..N-1,
DIR/include/project.h (what every unit shares, as a real project's internal header), and
DIR/compile_commands.json (gcc commands, one per unit, as bear or CMake write them). A unit
includes its own header and those of the units it calls, so the cost of a unit does not grow
with the size of the project.

Every unit looks like ordinary daemon code: a few functions over buffers and strings, a struct
with an `int fd` member, a write_all(int fd, ...) helper, calls into the next unit's functions
(so the call graph spans the whole project) and the usual libc headers. One unit in K (default
20) also uses AF_UNIX sockets *across files*: it creates a listener, accepts, keeps the accepted
fd in a struct field and hands it to a handler defined in the next socket unit, which reads
credentials from it. Odd-numbered socket units enable SO_PASSCRED on their listener before
listen() (clean); even-numbered ones never do, so the handler they reach is reported by
afunix-creds-without-passcred: the findings depend on the link, as on real code.

--sockets-apart: the socket units are a subsystem of their own, as in a large general codebase:
the other units keep their output fd in `struct record` (field `out`), not in the socket units'
`struct connection`, so no name joins them to the sockets (what the prefilter can skip).
--own-include-order: each unit includes the libc headers in an order of its own (no two units
share a header prefix, as in a codebase whose files grew apart).
"""
import argparse
import json
import os

HEADER = """\
#pragma once
#include <stddef.h>
#include <sys/types.h>

struct connection {
  int fd;
  int flags;
  char name[64];
  size_t pending;
};

ssize_t write_all(int fd, const void *buf, size_t len);
"""

LIBC = ["errno.h", "stdio.h", "stdlib.h", "string.h", "unistd.h", "fcntl.h", "limits.h",
        "stdint.h", "time.h", "ctype.h"]

PLAIN = """\
#include "project.h"
#include "unit_{i}.h"
#include "unit_{next}.h"

{libc}

static int counter_{i};

static size_t trim_{i}(char *s) {{
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\\n'))
    s[--n] = 0;
  return n;
}}

{functions}
int entry_{i}(struct connection *c, const char *text) {{
  char line[256];
  snprintf(line, sizeof line, "%s:%d", text, ++counter_{i});
  size_t n = trim_{i}(line);
  c->pending += n;
  return step_{next}_0(c->fd, line, n);
}}
"""

STEP = """\
int step_{i}_{k}(int fd, const char *buf, size_t len) {{
  if (len == 0)
    return 0;
  if (write_all(fd, buf, len) < 0 && errno != EAGAIN)
    return -1;
  return {call};
}}
"""

WRITE_ALL = """\
ssize_t write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, p + done, len - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    done += (size_t)n;
  }
  return (ssize_t)done;
}
"""

SOCKET = """\
#define _GNU_SOURCE
#include "project.h"
#include "unit_{i}.h"
#include "unit_{next}.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct connection clients_{i}[16];

int serve_{i}(const char *path) {{
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (listener < 0)
    return -1;
{passcred}  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 16) < 0) {{
    close(listener);
    return -1;
  }}
  for (int n = 0; n < 16; ++n) {{
    int fd = accept(listener, NULL, NULL);
    if (fd < 0)
      break;
    clients_{i}[n].fd = fd;
    handle_client_{next}(fd);
  }}
  return listener;
}}

int handle_client_{i}(int fd) {{
  char data[256];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {{data, sizeof data}};
  struct msghdr msg = {{0}};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {{
      struct ucred cred;
      memcpy(&cred, CMSG_DATA(c), sizeof cred);
      return cred.uid == 0;
    }}
  return 0;
}}
"""

PASSCRED = """\
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
"""


def generate(root, tus, socket_every, functions, sockets_apart=False, own_include_order=False):
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    os.makedirs(os.path.join(root, "include"), exist_ok=True)
    sockets = [i for i in range(tus) if i % socket_every == 0]
    next_socket = {s: sockets[(n + 1) % len(sockets)] for n, s in enumerate(sockets)}
    header = HEADER
    if sockets_apart:
        header += "\nstruct record {\n  int out;\n  int flags;\n  char name[64];\n  size_t pending;\n};\n"
    with open(os.path.join(root, "include", "project.h"), "w") as f:
        f.write(header)
    for i in range(tus):
        if i in next_socket:
            decls = f"int serve_{i}(const char *path);\nint handle_client_{i}(int fd);\n"
        else:
            record = "struct record *c" if sockets_apart else "struct connection *c"
            decls = f"int entry_{i}({record}, const char *text);\n" + "".join(
                f"int step_{i}_{k}(int fd, const char *buf, size_t len);\n" for k in range(functions))
        with open(os.path.join(root, "include", f"unit_{i}.h"), "w") as f:
            f.write(f"#pragma once\n#include \"project.h\"\n\n{decls}")
    plain = [i for i in range(tus) if i not in next_socket]
    next_plain = {p: plain[(n + 1) % len(plain)] for n, p in enumerate(plain)} if plain else {}
    commands = []
    for i in range(tus):
        path = os.path.join(root, "src", f"unit_{i}.c")
        if i in next_socket:
            # Every other socket unit enables SO_PASSCRED on its listener before listen().
            text = SOCKET.format(i=i, next=next_socket[i],
                                 passcred=PASSCRED if sockets.index(i) % 2 else "")
        else:
            steps = []
            for k in range(functions):
                call = f"step_{i}_{k + 1}(fd, buf + 1, len - 1)" if k + 1 < functions else "0"
                steps.append(STEP.format(i=i, k=k, call=call))
            libc = LIBC[:5]
            if own_include_order:
                # A permutation of its own per unit, and more or fewer of the headers.
                libc = LIBC[:5 + i % 6]
                libc = [libc[(k * 7 + i) % len(libc)] for k in range(len(libc))]
                libc = list(dict.fromkeys(libc)) + [h for h in LIBC[:5] if h not in libc]
            text = PLAIN.format(i=i, next=next_plain[i], functions="\n".join(steps),
                                libc="\n".join(f"#include <{h}>" for h in libc))
            if sockets_apart:
                text = text.replace("struct connection *c", "struct record *c").replace("c->fd", "c->out")
            if i == plain[0]:
                text += "\n" + WRITE_ALL
        with open(path, "w") as f:
            f.write(text)
        commands.append({
            "directory": root,
            "arguments": ["/usr/bin/gcc", "-Iinclude", "-O2", "-Wall", "-std=gnu11", "-c", "-o",
                          f"src/unit_{i}.o", f"src/unit_{i}.c"],
            "file": path,
            "output": os.path.join(root, "src", f"unit_{i}.o"),
        })
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump(commands, f, indent=1)
    return len(sockets)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--tus", type=int, default=1000)
    parser.add_argument("--socket-every", type=int, default=20)
    parser.add_argument("--functions", type=int, default=4)
    parser.add_argument("--sockets-apart", action="store_true")
    parser.add_argument("--own-include-order", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.dir)
    socket_units = generate(root, args.tus, args.socket_every, args.functions, args.sockets_apart,
                            args.own_include_order)
    print(f"{root}: {args.tus} units, {socket_units} using sockets")


if __name__ == "__main__":
    main()
