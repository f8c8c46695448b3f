#!/usr/bin/env bash
# The click fuzz (issue 24): ACTIONS random clicks, drags, wheel turns, key presses and typed
# text on one lab, fed into ImGui's input in front of the app's real frames (poslab
# --click-fuzz, app/click_fuzz.hpp), under Xvfb. An ImGui assertion is an abort of the whole
# app: the run must end with exit 0. HOME, the XDG folders and the working folder are a fresh
# temporary folder, and the app refuses to write outside the working folder (--click-fuzz),
# so no click can touch the user's files. Prints the run's counts (one JSON line); a failure
# prints the assertion and the command that reproduces it (same seed, same run).
# Usage: click_fuzz_test.sh POSLAB LAB ACTIONS SEED
set -u
app="$(realpath "$1")"; lab="$2"; actions="$3"; seed="$4"
here="$(dirname "$(realpath "$0")")"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share"
mkdir -p "$HOME"
cd "$tmp/home" || exit 1
args=(--click-fuzz "$actions" --fuzz-seed "$seed" --panel "$lab" --width 1280 --height 720)
bash "$here/xvfb.sh" "$app" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" != 0 ]; then
  echo "click fuzz of $lab aborted (exit $rc):"
  grep -a -m3 -i -e 'assert' -e 'abort' -e 'terminate' -e 'Segmentation' "$tmp/err"
  tail -n 5 "$tmp/err"
  echo "reproduce: xvfb-run -a -s '-screen 0 1600x1000x24' $app ${args[*]}"
  exit 1
fi
cat "$tmp/out"
grep -q '"aborts": 0' "$tmp/out" || { echo "no counts printed"; exit 1; }
