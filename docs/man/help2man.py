#!/usr/bin/env python3
"""Turns afunix-check's --help (already laid out as NAME/SYNOPSIS/DESCRIPTION/OPTIONS/...) into
a man page, so the installed afunix-check.1 always says what the binary says.

usage: help2man.py TOOL VERSION OUT.1   (runs `TOOL --help`)
"""
import os
import re
import subprocess
import sys


def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return ("\\&" + text) if text.startswith((".", "'")) else text


def convert(help_text, name, version):
    out = [f'.TH {name.upper()} 1 "" "{name} {version}" "User Commands"']
    lines = help_text.rstrip("\n").split("\n")
    i = 0
    code = False  # the previous line was a literal line (config example)
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        status = re.match(r"^ {4}(\d+)\s{2,}(.*)$", line)
        if not stripped:
            out.append(".PP")
            code = False
        elif not line.startswith(" "):
            out.append(f".SH {stripped}")
            code = False
        elif re.match(r"^ {4}(-|[A-Z][A-Z0-9_]+$)", line) and i + 1 < len(lines) and \
                lines[i + 1].startswith(" " * 8):  # an option, or an ENVIRONMENT variable
            out += [".TP", f"\\fB{roff(stripped)}\\fR"]
            code = False
        elif status:  # EXIT STATUS entries: "    2   text"
            out += [".TP", f"\\fB{status.group(1)}\\fR", roff(status.group(2))]
            code = False
        elif re.match(r"^[a-z_]+: ", stripped):  # a configuration example line
            out += [".br", roff(stripped)]
            code = True
        else:
            if code or re.match(rf"^ {{4}}{re.escape(name)}( |$)", line):
                out.append(".br")
            out.append(roff(stripped))
            code = False
        i += 1
    return "\n".join(out) + "\n"


def main():
    tool, version, target = sys.argv[1:4]
    help_text = subprocess.run([tool, "--help"], capture_output=True, text=True, check=True).stdout
    with open(target, "w") as f:
        f.write(convert(help_text, os.path.basename(tool), version))


if __name__ == "__main__":
    main()
