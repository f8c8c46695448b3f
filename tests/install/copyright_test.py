#!/usr/bin/env python3
"""Issue 40: packaging/copyright names every third-party library the built programs contain.

What poslab and poslab-cli contain is read from the build itself: the static archives on
their link lines and the headers their objects include (ninja's deps log), mapped to Debian
source packages with dpkg. A package whose shared library the program loads (its NEEDED
entries) ships its own notice and is left out, as are the compiler's and the C library's. Each
remaining source package needs a stanza whose Comment says "Debian source package NAME"; the
generated glad loader needs the glad stanza; and no stanza names a package the programs do not
contain (a stale stanza). Usage: copyright_test.py BUILD_DIR COPYRIGHT
"""
import os
import re
import subprocess
import sys

build, copyright_file = sys.argv[1], sys.argv[2]
TOOLCHAIN = {"glibc", "gcc-12", "gcc-defaults", "linux", "libxcrypt", "libzstd"}
PROGRAMS = ["app/poslab", "cli/poslab-cli"]


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def source_packages(paths):
    """Debian source package of each file (or the file it links to); unowned files are skipped."""
    wanted = {}
    for path in set(paths):
        wanted[path] = path
        wanted.setdefault(os.path.realpath(path), path)
    r = subprocess.run(["dpkg-query", "-S", *sorted(wanted)], capture_output=True, text=True)
    binaries = {}
    for line in r.stdout.splitlines():
        pkgs, _, path = line.partition(": ")
        if path in wanted:
            binaries.setdefault(pkgs.split(",")[0].split(":")[0].strip(), []).append(wanted[path])
    out = {}
    if binaries:
        fmt = "${Package}\t${source:Package}\n"
        for line in run("dpkg-query", "-W", "-f=" + fmt, *binaries).splitlines():
            pkg, src = line.split("\t")
            if pkg in binaries:
                out.setdefault(src, []).extend(binaries[pkg])
    return out


def needed_sources(program):
    sonames = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", run("readelf", "-d", program))
    libs = []
    for line in run("ldconfig", "-p").splitlines():
        m = re.match(r"\s*(\S+) \(libc6,x86-64[^)]*\) => (\S+)", line)
        if m and m.group(1) in sonames:
            libs.append(m.group(2))
    return set(source_packages(libs))


static, glad = {}, False
for target in PROGRAMS:
    inputs = run("ninja", "-C", build, "-t", "inputs", target).split()
    archives = [i for i in inputs if i.endswith(".a") and os.path.isabs(i)
                and not os.path.realpath(i).startswith(os.path.realpath(build))]
    objects = [i for i in inputs if i.endswith(".o")]
    glad |= any("poslab_glad" in i for i in inputs)
    headers = []
    deps = run("ninja", "-C", build, "-t", "deps", *objects)
    for line in deps.splitlines():
        line = line.strip()
        if line.startswith("/usr/include/"):
            headers.append(line)
    if not headers:
        sys.exit(f"FAIL: no header dependencies recorded for {target} (build it first)")
    needed = needed_sources(os.path.join(build, target))
    for src, files in {**source_packages(headers), **source_packages(archives)}.items():
        if src in TOOLCHAIN or src in needed:
            continue
        static.setdefault(src, set()).add(target.split("/")[-1])

text = open(copyright_file, encoding="utf-8").read()
declared = set(re.findall(r"Debian source\s+package\s+([a-z0-9][a-z0-9.+-]+)", text))
fail = 0
for src, programs in sorted(static.items()):
    ok = src in declared
    print(f"{'ok  ' if ok else 'FAIL'} {src}: compiled into {', '.join(sorted(programs))}"
          + ("" if ok else f": no stanza in {copyright_file} says 'Debian source package {src}'"))
    fail |= not ok
if glad:
    ok = "Files: compiled-in/glad/*" in text
    print(f"{'ok  ' if ok else 'FAIL'} glad: the generated OpenGL loader is linked into poslab"
          + ("" if ok else ": no compiled-in/glad stanza"))
    fail |= not ok
for src in sorted(declared - set(static) - {"python-glad"}):
    print(f"FAIL {src}: a stanza names it, but neither program contains it (a stale stanza)")
    fail = 1
sys.exit(1 if fail else 0)
