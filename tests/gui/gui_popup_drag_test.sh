#!/usr/bin/env bash
# Issue 40: "popups can be dragged above the window and the file picker shrunk to 20 px".
# With xdotool under Xvfb, at UI scale 1 and 2: the Share popup, grabbed low on its body
# (ImGui moves a window from any empty spot), is dragged to the top edge of the screen: its
# title bar stays on the window (y >= 0), so it can still be grabbed and brought back. Its
# Save-as file picker, grabbed by its resize corner and dragged onto its own top-left
# corner, keeps a usable size (at least 300 x 200 px at scale 1), and dragged up it too
# keeps its title on the window. Every step waits for the state the app reports on its
# POSLAB_WIDGET_RECTS hook (x_window.sh, hook.py); nothing sleeps for a guessed time.
# Usage: gui_popup_drag_test.sh POSLAB
set -u
app="$1"
command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" HOME="$tmp/home"
export POSLAB_WIDGET_RECTS="$tmp/rects.json" APP="$app" OUT="$tmp/out"
mkdir -p "$OUT" "$HOME" "$XDG_CONFIG_HOME/poslab"
printf '{"export_dir": "%s"}\n' "$OUT" > "$XDG_CONFIG_HOME/poslab/settings.json"
. "$(dirname "$0")/x_window.sh"   # app_start, on_fresh_server

cat > "$tmp/case.sh" <<'EOS'
scale="$1"; name="drag-${scale}x"
. "$X_WINDOW_SH"
q() { hook_eval "$1"; }
fail() { echo "$name: $1"; kill "$pid" 2>/dev/null; exit 1; }
until_() { hook_wait "$1" "$2" || fail "timed out waiting for $2"; }
center() { q "'%d %d' % ((r['$1'][0] + r['$1'][2]) / 2, (r['$1'][1] + r['$1'][3]) / 2)"; }
click() { app_click "$(center "$1")" || fail "the click on $1 was not seen"; }
# drag X0 Y0 X1 Y1: button down at X0,Y0, eight steps to X1,Y1, button up; each step waits
# for the app to have drawn the frame after the one that saw the pointer there.
drag() {
  app_move "$1" "$2" || fail "the pointer never reached $1,$2"
  xdotool mousedown --window "$wid" 1
  until_ "j['mouse_down']" "the button down at $1,$2"
  for k in 1 2 3 4 5 6 7 8; do
    app_move $(($1 + ($3 - $1) * k / 8)) $(($2 + ($4 - $2) * k / 8)) || fail "the drag stalled"
  done
  xdotool mouseup --window "$wid" 1
  until_ "not j['mouse_down'] and j['frame'] > j['mouse_frame'] + 1" "the button up"
}
app_start "$OUT/$name.err" --preset rope --scale "$scale" --width 1600 --height 1000
until_ "'open' in r" "the Share button"
click open
until_ "'popup' in r and 'browse.picture' in r" "the Share popup"
# Grabbed in the middle of its bottom padding (no item there; 6 px above the bottom edge, out
# of reach of the edge's 4 px resize zone and of the corners' grips) and taken up to the
# screen's top: without the clamp the popup's top lands its height above the window.
grip() { q "'%d %d' % ((r['$1'][0] + r['$1'][2]) / 2, r['$1'][3] - 6 * $scale)"; }
read -r gx gy <<<"$(grip popup)"
drag "$gx" "$gy" "$gx" 0
top=$(q "int(r['popup'][1])")
[ "$top" -ge 0 ] || fail "the Share popup was dragged above the window (top at y=$top)"
echo "$name: Share popup dragged up: its top at y=$top (grabbed at y=$gy)"
click browse.picture
until_ "'picker' in r" "the Save-as file picker"
# Its resize corner onto its top-left corner (+20 px).
read -r x0 y0 x1 y1 <<<"$(q "'%d %d %d %d' % (r['picker'][0], r['picker'][1], r['picker'][2] - 3, r['picker'][3] - 3)")"
drag "$x1" "$y1" $((x0 + 20)) $((y0 + 20))
size=$(q "'%d x %d' % (r['picker'][2] - r['picker'][0], r['picker'][3] - r['picker'][1])")
[ "$(q "int(r['picker'][2] - r['picker'][0] >= 300 * $scale and r['picker'][3] - r['picker'][1] >= 200 * $scale)")" = 1 ] ||
  fail "the file picker was shrunk to $size px"
echo "$name: file picker resized towards 20 px: $size px"
read -r gx gy <<<"$(grip picker)"
drag "$gx" "$gy" "$gx" 0
top=$(q "int(r['picker'][1])")
[ "$top" -ge 0 ] || fail "the file picker was dragged above the window (top at y=$top)"
echo "$name: file picker dragged up: its top at y=$top (grabbed at y=$gy)"
app_quit; rc=$?
[ "$rc" = 0 ] || fail "exit $rc at Quit: $(grep -a -m1 -i 'assert\|abort' "$OUT/$name.err")"
echo "$name: ok"
EOS

status=0
for scale in 1 2; do
  on_fresh_server "$tmp/case.sh" "$scale" || status=1
done
[ "$status" = 0 ] && echo ok
exit "$status"
