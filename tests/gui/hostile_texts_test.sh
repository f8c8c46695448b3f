#!/usr/bin/env bash
# Issue 36: files found through the data folder are data from a stranger. A copy of the data
# folder (POSLAB_DATA_DIR) is made hostile three ways, and nothing crashes:
#   deep-i18n     an interface-text file with a 50,000-level dotted key (~100 KB): toml++
#                 overflowed the stack at start. `poslab --check` runs and names the file.
#   deep-catalog  the lessons catalog nested the same way: `poslab-cli quiz list` exits 2 with
#                 one line naming it, and the lessons lab opens.
#   formats       every interface text (and the lessons' words) starts with %s%n%99999999d:
#                 they were printf formats (crash, abort); `poslab --check` opens every lab
#                 with its check presets and finishes.
# Usage: hostile_texts_test.sh POSLAB POSLAB_CLI SOURCE_DIR
set -u
app="$1" cli="$2" src="$3"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"  # never the user's files
fail=0

# A data folder of our own: copies of the texts, links to the big files.
make_data() {
  rm -rf "$tmp/d"; mkdir -p "$tmp/d/assets"
  cp -r "$src/lessons" "$tmp/d/lessons"
  cp -r "$src/assets/i18n" "$tmp/d/assets/i18n"
  ln -s "$src/assets/models" "$tmp/d/assets/models"
  ln -s "$src/assets/welcome" "$tmp/d/assets/welcome"
}
deep_key() { python3 -c "import sys; sys.stdout.write('.'.join(['k'] * 50000) + ' = \"x\"\n')"; }
check_run() {  # check_run NAME: poslab --check on $tmp/d; a crash (signal) fails
  POSLAB_DATA_DIR="$tmp/d" timeout 900 bash "$(dirname "$0")/xvfb.sh" "$app" --check \
    > "$tmp/$1.out" 2>&1; rc=$?
  if [ "$rc" -ge 124 ]; then
    echo "FAIL $1: poslab --check exited $rc (crash or hang):"; tail -5 "$tmp/$1.out"; fail=1
  elif ! grep -q '^[0-9]* checks, [0-9]* failures' "$tmp/$1.out"; then
    echo "FAIL $1: poslab --check did not finish its checks:"; tail -5 "$tmp/$1.out"; fail=1
  fi
}

# deep-i18n
make_data
deep_key > "$tmp/d/assets/i18n/en/zz_deep.toml"
check_run deep-i18n
grep -q "zz_deep.toml: line 1: nested deeper than" "$tmp/deep-i18n.out" ||
  { echo "FAIL deep-i18n: the file is not named:"; grep -m3 -i "deep\|FAIL" "$tmp/deep-i18n.out"; fail=1; }

# deep-catalog
make_data
{ echo "format = 1"; deep_key; } > "$tmp/d/lessons/catalog.toml"
err=$(POSLAB_DATA_DIR="$tmp/d" "$cli" quiz list 2>&1 >/dev/null); rc=$?
{ [ "$rc" -eq 2 ] && grep -q "catalog.toml: line 2: nested deeper than" <<<"$err" &&
  [ "$(wc -l <<<"$err")" -eq 1 ]; } ||
  { echo "FAIL deep-catalog: quiz list exit $rc: $err"; fail=1; }
# The lessons lab opens (it shows the catalog's problem in its page; a full --check is the
# other two cases' job).
err=$(POSLAB_DATA_DIR="$tmp/d" timeout 300 bash "$(dirname "$0")/xvfb.sh" "$app" --panel lessons \
      --frames 8 2>&1 >/dev/null); rc=$?
{ [ "$rc" -eq 0 ] && grep -q "active: lessons" <<<"$err"; } ||
  { echo "FAIL deep-catalog: the lessons lab exited $rc: $err"; fail=1; }

# formats: every single-line text, and every {en, zh} word of the lessons lab
make_data
python3 - "$tmp/d" <<'PY'
import pathlib, re, sys
d = pathlib.Path(sys.argv[1])
bad = "%s%n%99999999d%n "
files = list((d / "assets" / "i18n").glob("*/*.toml")) + [d / "lessons" / "ui.toml"]
for f in files:
    t = f.read_text(encoding="utf-8")
    t = re.sub(r'^(\s*[A-Za-z0-9_."-]+\s*=\s*)"(?!"")', lambda m: m.group(1) + '"' + bad, t, flags=re.M)
    t = re.sub(r'\b(en|zh)(\s*=\s*)"(?!"")', lambda m: m.group(1) + m.group(2) + '"' + bad, t)
    f.write_text(t, encoding="utf-8")
PY
grep -q '%n' "$tmp/d/assets/i18n/en/length.toml" || { echo "FAIL formats: texts not rewritten"; fail=1; }
check_run formats

[ "$fail" -eq 0 ] && echo "ok: deep interface texts, a deep catalog and format-specifier texts"
exit "$fail"
