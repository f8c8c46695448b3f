#!/usr/bin/env bash
# GUI checks under a virtual X display (Mesa's software OpenGL). Usage:
#   gui_test.sh <poslab> <case> [args]
# Cases: check (every panel, extreme presets, optional presets file), screenshot,
# bad-preset (banner, no crash), no-display (clear message, non-zero exit).
set -u
app="$1"; case_="$2"; shift 2
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never touch the user's files
xvfb=(xvfb-run -a -s "-screen 0 1600x1000x24")

case "$case_" in
  check)
    "${xvfb[@]}" "$app" --check "$@"
    ;;
  screenshot)
    "${xvfb[@]}" "$app" --preset 'rope?dim=512&scaling=yarn&factor=8' --frames 5 --screenshot "$tmp/shot.png" || exit 1
    head -c 8 "$tmp/shot.png" | od -An -c | grep -q 'P   N   G' || { echo "not a PNG"; exit 1; }
    ;;
  bad-preset)
    err=$("${xvfb[@]}" "$app" --preset 'rope?dim=3' --frames 3 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 0 ] || { echo "app exited $rc on a bad preset: $err"; exit 1; }
    grep -q "head_dim = 3" <<<"$err" || { echo "no banner naming head_dim: $err"; exit 1; }
    ;;
  no-display)
    err=$(env -u DISPLAY -u WAYLAND_DISPLAY "$app" --frames 1 2>&1); rc=$?
    [ "$rc" -ne 0 ] || { echo "exit 0 without a display"; exit 1; }
    [ "$rc" -lt 128 ] || { echo "crashed (exit $rc) without a display"; exit 1; }
    grep -q "xvfb-run" <<<"$err" || { echo "message does not say how to run headless: $err"; exit 1; }
    ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
