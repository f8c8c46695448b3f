#!/usr/bin/env bash
# Share > Save picture with the cursor resting over something that shows a hover tooltip
# (issue 24): the popup is not drawn while the picture is rendered and comes back in the
# next frame, the same frame the lab under the cursor begins its tooltip. Dear ImGui 1.86
# aborted there ("ImGui::Begin: Assertion 'blocking_modal != NULL' failed", 6 of 6 runs).
# For a wheels dial and an attention cell, at UI scale 1 and 2: find a point of the main
# view whose hover shows a tooltip, drag the Share popup so its picture Save button lies on
# that point, press Save; the picture is written and the app is still running, the popup
# back with its status. Controls and the tooltip come from the POSLAB_WIDGET_RECTS hook.
# Usage: gui_share_hover_test.sh POSLAB
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
preset="$1"; scale="$2"; name="$3"
rects="$POSLAB_WIDGET_RECTS"
. "$X_WINDOW_SH"
q() {
  python3 - "$rects" "$1" 2>/dev/null <<'EOP'
import json, sys
j = json.load(open(sys.argv[1])); r = j["rects"]
v = eval(sys.argv[2]); print(int(v) if isinstance(v, bool) else v)
EOP
}
fail() { echo "$name: $1"; kill "$pid" 2>/dev/null; exit 1; }
until_() {
  for i in $(seq 200); do [ "$(q "$1")" = 1 ] && return 0; sleep 0.2; done
  fail "timed out waiting for $2 (hook: $(cat "$rects" 2>/dev/null))"
}
rm -f "$rects" "$OUT/poslab-${preset%%\?*}.png"   # no earlier picture: no "replace it?"
app_start "$OUT/$name.err" --preset "$preset" --scale "$scale" --width 1600 --height 1000
until_ "'open' in r and len(j['view']) == 4 and j['view'][2] > j['view'][0]" "the lab's main view"
center() { q "'%d %d' % ((r['$1'][0] + r['$1'][2]) / 2, (r['$1'][1] + r['$1'][3]) / 2)"; }
click() { xdotool mousemove --window "$wid" $(center "$1"); sleep 0.3; xdotool click --window "$wid" 1; }
# The popup is dragged by its title bar, which the pointer cannot take above the screen: the
# Save button's centre can go no higher than its offset below that grip.
click open
until_ "'save.picture' in r and 'popup' in r" "the Share popup"
reach=$(q "int((r['save.picture'][1] + r['save.picture'][3]) / 2 - r['popup'][1] - 6 * $scale + 4)")
click close
until_ "'close' not in r" "the popup closed"
# A point of the main view that the Save button can reach and whose hover shows a tooltip
# (a dial, a cell): a 7x7 scan.
target=""
for p in $(q "' '.join('%d,%d' % (j['view'][0] + (j['view'][2] - j['view'][0]) * (a + 0.5) / 7, y) for b in range(7) for a in range(7) for y in [j['view'][1] + (j['view'][3] - j['view'][1]) * (b + 0.5) / 7] if y >= $reach)"); do
  xdotool mousemove --window "$wid" ${p/,/ }
  for i in 1 2 3 4; do sleep 0.25; [ "$(q "j['tooltip']")" = 1 ] && break; done
  [ "$(q "j['tooltip']")" = 1 ] && { target="$p"; break; }
done
[ -n "$target" ] || fail "no point of the main view below y=$reach shows a tooltip"
tx=${target%,*}; ty=${target#*,}
# Open Share again and drag the popup (grip: the right end of its title bar) so that the
# Save button's centre lies on the point.
click open
until_ "'save.picture' in r and 'popup' in r" "the Share popup again"
for attempt in 1 2 3; do
  read -r gx gy dx dy <<<"$(q "'%d %d %d %d' % (r['popup'][2] - 40 * $scale, r['popup'][1] + 6 * $scale, $tx - (r['save.picture'][0] + r['save.picture'][2]) / 2, $ty - (r['save.picture'][1] + r['save.picture'][3]) / 2)")"
  [ "${dx#-}" -le 2 ] && [ "${dy#-}" -le 2 ] && break
  xdotool mousemove --window "$wid" "$gx" "$gy"; sleep 0.3
  xdotool mousedown --window "$wid" 1; sleep 0.2
  for k in 1 2 3 4 5 6 7 8; do
    xdotool mousemove --window "$wid" -- $((gx + dx * k / 8)) $((gy + dy * k / 8)); sleep 0.1
  done
  sleep 0.3; xdotool mouseup --window "$wid" 1; sleep 0.6
done
until_ "abs((r['save.picture'][0] + r['save.picture'][2]) / 2 - $tx) <= 3 and abs((r['save.picture'][1] + r['save.picture'][3]) / 2 - $ty) <= 3" "the Save button on the point $tx,$ty"
xdotool mousemove --window "$wid" "$tx" "$ty"; sleep 0.5
xdotool click --window "$wid" 1
for i in $(seq 150); do [ -s "$OUT/poslab-${preset%%\?*}.png" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
sleep 2   # the frames after the capture: the popup comes back while the lab draws its tooltip
if ! kill -0 "$pid" 2>/dev/null; then
  wait "$pid"; rc=$?
  fail "the app ended (exit $rc) after Save: $(grep -a -m1 -i 'assert\|abort' "$OUT/$name.err")"
fi
[ -s "$OUT/poslab-${preset%%\?*}.png" ] || fail "no picture written"
until_ "j['status'].startswith('Saved the picture') and 'close' in r" "the popup back, saying the picture is saved"
rm -f "$OUT/poslab-${preset%%\?*}.png"
xdotool key --window "$wid" ctrl+q; wait "$pid"
echo "$name: ok (Save over the tooltip point $tx,$ty)"
EOS

status=0
for c in "rope?dim=64 1 dial-1x" "rope?dim=64 2 dial-2x" "attention?source=count&tokens=12 1 cell-1x" "attention?source=count&tokens=12 2 cell-2x"; do
  set -- $c
  on_fresh_server "$tmp/case.sh" "$1" "$2" "$3" || status=1
done
[ "$status" = 0 ] && echo ok
exit "$status"
