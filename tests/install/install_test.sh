#!/usr/bin/env bash
# PosLab installed as a user gets it, run with the source and build trees out of reach.
#   install_test.sh BUILD_DIR install   cmake --install into a temporary prefix
#   install_test.sh BUILD_DIR deb       cpack -G DEB, then the package's files (dpkg-deb -x)
# The installed tree is moved after installing (the lookup is relative to the executable),
# then run from / in a mount namespace where tmpfs hides what a clean machine lacks: the source
# and build trees, and Debian's fortune files (the length lab's text: the package ships its
# held-out part instead) (unshare; as non-root through a user namespace). Where no namespace can be made (a container without
# the right), the moved tree is still run from /, and the data folder the app reports must
# be the installed one. Checks: `poslab --check` under Xvfb passes and reports the installed
# data folder; every lab's poslab-cli command runs on the installed data (rope, attention with
# random and trained weights, kv, sim, wm dream, length, lm eval, quiz); a missing lessons
# catalog, interface text, world or language model or held-out text is a named error for
# `poslab --check` (exit 1) and for poslab-cli (exit 2), worded for an installed copy.
set -u
build="$(cd "$1" && pwd)"; mode="$2"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d /tmp/poslab-install.XXXXXX)"; trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
case "$mode" in
  install)
    cmake --install "$build" --prefix "$tmp/stage" >"$tmp/install.log" 2>&1 ||
      { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
    mkdir "$tmp/moved" && mv "$tmp/stage" "$tmp/moved/prefix" ;;
  deb)
    (cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
      { cat "$tmp/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
    deb=$(ls "$tmp"/pkg/poslab_*.deb) || { echo "FAIL: no .deb in $tmp/pkg"; exit 1; }
    dpkg-deb -f "$deb" Package Version Installed-Size Depends
    mkdir -p "$tmp/moved/root" && dpkg-deb -x "$deb" "$tmp/moved/root"
    mv "$tmp/moved/root/usr" "$tmp/moved/prefix" ;;
  *) echo "usage: install_test.sh BUILD_DIR install|deb" >&2; exit 64 ;;
esac
prefix="$tmp/moved/prefix"
echo "== installed tree ($mode): $(find "$prefix" -type f | wc -l) files, $(du -sh "$prefix" | cut -f1)"
cp "$src/tests/gui/xvfb.sh" "$tmp/xvfb.sh"

# The checks, run from / by a script outside the hidden trees.
cat >"$tmp/inner.sh" <<'INNER'
set -u
prefix="$1"; tmp="$2"; src="$3"; build="$4"
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/config" XDG_DATA_HOME="$tmp/home/data"
unset POSLAB_DATA_DIR POSLAB_LESSONS_DIR POSLAB_ASSETS_DIR POSLAB_MODELS_DIR POSLAB_LANG
mkdir -p "$HOME"; cd /
fail=0
if [ -e "$src/lessons/catalog.toml" ] || [ -e "$build/CMakeCache.txt" ]; then
  echo "note: source tree visible ($src): checked by the data folder the app reports"
else
  echo "source tree hidden: $src and $build are empty here"
fi
fortunes_hidden=1
if [ -e /usr/share/games/fortunes/fortunes ]; then
  echo "note: Debian's fortune files visible: the held-out file is not the only source here"
  fortunes_hidden=0
else
  echo "fortune files hidden: /usr/share/games/fortunes is empty here"
fi
cli="$prefix/bin/poslab-cli"; app="$prefix/bin/poslab"; data="$prefix/share/poslab/data"
want_dir="data folder: $data (installed)"

out=$(timeout 900 bash "$tmp/xvfb.sh" "$app" --check 2>&1); rc=$?
echo "$out" | grep -E "^(data folder|FAIL|[0-9]+ checks)"
[ "$rc" -eq 0 ] || { echo "FAIL: installed poslab --check exited $rc"; fail=1; }
grep -qF "$want_dir" <<<"$out" || { echo "FAIL: --check did not use $data"; fail=1; }

json() {  # json EXPR ARGS...: poslab-cli ARGS prints JSON for which EXPR holds
  local expr="$1"; shift
  local o; o=$("$cli" "$@" 2>&1) || { echo "FAIL: poslab-cli $*: $o"; fail=1; return; }
  python3 -c "import json,sys; j=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" <<<"$o" ||
    { echo "FAIL: poslab-cli $*: $expr does not hold"; fail=1; return; }
  echo "ok   poslab-cli $*"
}
json "j['dir']=='$data/lessons' and len(j['lessons'])>=9 and all(l['status']=='ok' for l in j['lessons'])" quiz list
json "j['kind']=='single' and len(j['options'])==4" quiz show 01-why-positions q1-why-encode --seed 3
json "len(j)>0" wm dream --preset dreams --steps 3
json "len(j['inv_freq'])==32" rope --preset 'rope?dim=64'
json "j['encoding']=='alibi' and j['heads']==6" attention --preset 'attention?enc=alibi&heads=6'
json "j['weights']=='trained' and j['heldout']" attention --preset 'attention?weights=trained&source=count'
json "j['lab']=='kv'" kv --preset kv
json "len(j)>0" sim --preset 'arena?seed=7' --steps 20
json "len(j['curves'])>=8 and not j['missing']" length --span 2 --windows 2
json "j['text']=='validation split of the recorded files'" lm eval "$data/assets/models/lm_rope.safetensors" --positions 2L --windows 2

# Each missing piece is named, by the app's --check (exit 1) and by poslab-cli (exit 2).
missing() {  # missing FILE CLI-ARGS...
  local file="$1"; shift
  mv "$file" "$file.away"
  local o rc
  o=$(timeout 300 bash "$tmp/xvfb.sh" "$app" --check 2>&1); rc=$?
  if [ "$rc" -eq 1 ] && grep -qF "FAIL data: " <<<"$o" && grep -qF "$file" <<<"$o"; then
    echo "ok   missing $file: $(grep -F "FAIL data:" <<<"$o" | head -1)"
  else
    echo "FAIL: --check with $file missing: exit $rc: $(head -c 400 <<<"$o")"; fail=1
  fi
  if [ $# -gt 0 ]; then
    o=$("$cli" "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 2 ] && grep -qF "$file" <<<"$o"; then echo "ok   poslab-cli $*: $o"
    else echo "FAIL: poslab-cli $* with $file missing: exit $rc: $o"; fail=1; fi
  fi
  mv "$file.away" "$file"
}
missing "$data/lessons/catalog.toml" quiz list
missing "$data/assets/i18n/zh/shell.toml"
missing "$data/assets/models/wm_tiny_rope.safetensors" wm dream --preset dreams --steps 3
missing "$data/assets/models/lm_rope.safetensors" attention --preset 'attention?weights=trained'
if [ "$fortunes_hidden" -eq 1 ]; then
  missing "$data/assets/models/lm_held_out.txt" length --span 2 --windows 2
else
  missing "$data/assets/models/lm_held_out.txt"
fi
# No message tells an installed user to run a script of the source tree.
o=$("$cli" length --span 2 --windows 2 2>&1 >/dev/null)
mv "$data/assets/models/lm_held_out.txt" "$data/assets/models/lm_held_out.txt.away"
o="$o $("$cli" length --span 2 --windows 2 2>&1 >/dev/null) $("$cli" lm eval "$data/assets/models/lm_rope.safetensors" --windows 2 2>&1 >/dev/null)"
mv "$data/assets/models/lm_held_out.txt.away" "$data/assets/models/lm_held_out.txt"
if grep -q "scripts/" <<<"$o"; then echo "FAIL: a message names a source-tree script: $o"; fail=1
else echo "ok   no message names a source-tree script"; fi
exit $fail
INNER

run=(bash "$tmp/inner.sh" "$prefix" "$tmp" "$src" "$build")
# The build tree first: it may lie inside the source tree, which then hides it too.
# Debian's fortune files too, where installed (a clean machine has none).
fortunes=/usr/share/games/fortunes; [ -d "$fortunes" ] || fortunes="$tmp/no-fortunes"
mkdir -p "$tmp/no-fortunes"
hide='mount -t tmpfs none "$0" && mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && shift 2 && exec "$@"'
if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
  unshare --mount --propagation private sh -c "$hide" "$build" "$src" "$fortunes" "${run[@]}"
elif unshare --mount --map-root-user true 2>/dev/null; then
  unshare --mount --map-root-user --propagation private sh -c "$hide" "$build" "$src" "$fortunes" "${run[@]}"
else
  echo "note: no mount namespace here (unshare refused): the trees stay visible"
  "${run[@]}"
fi
