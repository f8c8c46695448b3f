#!/usr/bin/env python3
"""Writes a man page of poslab or poslab-cli with help2man (the build runs it; see
cmake/poslab_install.cmake). The options come from the program's own --help, so the page
never drifts from it; for poslab-cli, each subcommand's --help (and its subcommands') follows
as a section. The test-only options (poslab's "Testing:" group) are left out, the build
machine's path in "Usage:" becomes the program's name, and the sections help2man cannot see
(examples, exit status, environment, files) come from packaging/<program>.h2m.
  man_page.py PROGRAM H2M NAME_LINE OUT"""
import os
import re
import stat
import subprocess
import sys
import tempfile

program, h2m, name_line, out = sys.argv[1:5]
prog = os.path.basename(program)


def clean_help(text):
    text = re.sub(r"^Usage: \S*/(" + re.escape(prog) + r")\b", r"Usage: \1", text, flags=re.M)
    # poslab's options for the test suite are not for users: drop the group.
    return re.split(r"^Testing:\s*$", text, maxsplit=1, flags=re.M)[0].rstrip() + "\n"


def helps(args):
    return subprocess.run([program, *args, "--help"], check=True, capture_output=True,
                          text=True).stdout


def subcommands(text):
    part = re.split(r"^Subcommands:\s*$", text, maxsplit=1, flags=re.M)
    if len(part) < 2:
        return []
    return [m.group(1) for m in re.finditer(r"^  (\S+)\s", part[1], flags=re.M)]


def roff(text):
    lines = []
    for line in text.rstrip().splitlines():
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


with tempfile.TemporaryDirectory() as tmp:
    include = open(h2m, encoding="utf-8").read()
    top = helps([])
    sections = []

    def walk(path):
        for sub in subcommands(helps(path)):
            sections.append((path + [sub], clean_help(helps(path + [sub]))))
            walk(path + [sub])

    walk([])
    if sections:
        body = "\n".join(f'.SS "{prog} {" ".join(p)}"\n.nf\n{roff(t)}\n.fi' for p, t in sections)
        include = "[SUBCOMMANDS]\nEach subcommand's options, as its --help prints them.\n" + body \
            + "\n\n" + include
    inc = os.path.join(tmp, "page.h2m")
    open(inc, "w", encoding="utf-8").write(include)
    # help2man runs the program itself: a wrapper gives it the cleaned --help.
    help_file = os.path.join(tmp, "help.txt")
    open(help_file, "w", encoding="utf-8").write(clean_help(top))
    wrapper = os.path.join(tmp, prog)
    with open(wrapper, "w") as w:
        w.write(f'#!/bin/sh\nif [ "$1" = --help ]; then cat "{help_file}"; '
                f'else exec "{program}" "$@"; fi\n')
    os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IEXEC)
    subprocess.run(["help2man", "--no-info", "--no-discard-stderr", "--version-option=--version",
                    f"--name={name_line}", f"--include={inc}", f"--output={out}", wrapper],
                   check=True)
