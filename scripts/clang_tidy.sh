#!/usr/bin/env bash
# clang-tidy (Debian's clang-tidy-14; checks in .clang-tidy: bugprone-*, performance-*) over
# every .cpp of core/, io/, cli/ and app/ in a build's compile_commands.json, in parallel.
#   scripts/clang_tidy.sh [BUILD_DIR]             every file (default build/release)
#   scripts/clang_tidy.sh BUILD_DIR --since REV   only the .cpp files changed since git REV,
#                                                 and those beside a changed header (CI)
# Exit 1 on any finding. The whole run is the ctest `clang_tidy` (label tidy: several
# CPU-minutes; `ctest -LE tidy` skips it); CI runs the --since form against the commit in
# .ci/tidy-base, the last one whose whole run was clean (move it forward after a whole run).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build/release}"
since=""
if [ "${2:-}" = "--since" ]; then
  since="${3:?--since needs a git revision}"
  if ! git cat-file -e "$since^{commit}" 2>/dev/null; then
    echo "clang-tidy: no commit $since in this clone (shallow?), so what changed is unknown: skipped; run the whole check (no --since)" >&2
    exit 0
  fi
fi
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: configure first" >&2; exit 2; }
tidy="$(command -v run-clang-tidy-14 || true)"
[ -n "$tidy" ] || { echo "run-clang-tidy-14 not found: apt-get install clang-tidy-14" >&2; exit 2; }
out="$(mktemp)"; db="$(mktemp -d)"; trap 'rm -rf "$out" "$db"' EXIT
# The compile database, with each unity batch (CI builds unity) split back into the sources
# it includes, so every file is checked under its own name with its target's flags.
changed=""
[ -n "$since" ] && changed="$(git diff --name-only "$since" -- core io cli app | tr '\n' ' ')"
mapfile -t files < <(python3 - "$build/compile_commands.json" "$PWD" "$db" "$since" "$changed" <<'PY'
import json, os, re, sys
root, out, since = sys.argv[2], sys.argv[3], sys.argv[4]
# With --since: a changed .cpp, or the .cpp beside a changed .hpp/.ipp (same folder and stem).
wanted = {os.path.splitext(p)[0] for p in sys.argv[5].split()}
entries, seen = [], set()
for c in json.load(open(sys.argv[1])):
    f = os.path.normpath(os.path.join(c["directory"], c["file"]))
    sources = [f]
    if re.search(r"/Unity/unity_[0-9]+_cxx\.cxx$", f):
        sources = re.findall(r'^#include "(.+)"$', open(f).read(), re.M)
    for src in sources:
        rel = os.path.relpath(src, root)
        if since and os.path.splitext(rel)[0] not in wanted:
            continue
        if rel.split(os.sep)[0] in ("core", "io", "cli", "app") and src not in seen:
            seen.add(src)
            entries.append(dict(c, file=src, command=c["command"].replace(c["file"], src)))
            print(src)
json.dump(entries, open(os.path.join(out, "compile_commands.json"), "w"), indent=1)
PY
)
echo "clang-tidy: ${#files[@]} files of core/, io/, cli/, app/${since:+ changed since $since}"
[ "${#files[@]}" -eq 0 ] && { echo "clang-tidy: no findings"; exit 0; }
"$tidy" -p "$db" -j "$(nproc)" -quiet -extra-arg=-Wno-unknown-warning-option "${files[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$out"
findings=$(grep -cE '^/.*: (warning|error):' "$out")
if [ "$findings" -ne 0 ]; then
  grep -E '^/.*: (warning|error):' "$out" | sort -u
  echo "clang-tidy: $findings findings (fix them, or turn a check off in .clang-tidy saying why)"
  exit 1
fi
echo "clang-tidy: no findings"
