#!/usr/bin/env bash
# Share > Save picture with the cursor resting over something that shows a hover tooltip
# (issue 24): the popup is not drawn while the picture is rendered and comes back in the
# next frame, the same frame the lab under the cursor begins its tooltip. Dear ImGui 1.86
# aborted there ("ImGui::Begin: Assertion 'blocking_modal != NULL' failed", 6 of 6 runs).
# For a wheels dial and an attention cell, at UI scale 1 and 2: find a point of the main
# view whose hover shows a tooltip, drag the Share popup so its picture Save button lies on
# that point, press Save; the picture is written and the app is still running, the popup
# back with its status. Controls and the tooltip come from the POSLAB_WIDGET_RECTS hook.
# Issue 40: nothing sleeps; every step waits for the state the hook reports (x_window.sh). And
# nothing under the modal popup shows a tooltip: for the KV cache strip and the dream token
# strip (which tested a bare rectangle), every point of the view that shows one with the popup
# closed shows none while it is open.
# Usage: gui_share_hover_test.sh POSLAB [CASE...]  (cases: dial-1x ... dreams-modal; all by default)
set -u
app="$1"; shift; only=" $* "
command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" HOME="$tmp/home"
export POSLAB_WIDGET_RECTS="$tmp/rects.json" APP="$app" OUT="$tmp/out"
mkdir -p "$OUT" "$HOME" "$XDG_CONFIG_HOME/poslab"
printf '{"export_dir": "%s"}\n' "$OUT" > "$XDG_CONFIG_HOME/poslab/settings.json"
. "$(dirname "$0")/x_window.sh"   # app_start, on_fresh_server

cat > "$tmp/case.sh" <<'EOS'
preset="$1"; scale="$2"; name="$3"; mode="${4:-save}"
. "$X_WINDOW_SH"
q() { hook_eval "$1"; }
fail() { echo "$name: $1"; kill "$pid" 2>/dev/null; exit 1; }
until_() { hook_wait "$1" "$2" || fail "timed out waiting for $2"; }
rm -f "$OUT/poslab-${preset%%\?*}.png"   # no earlier picture: no "replace it?"
app_start "$OUT/$name.err" --preset "$preset" --scale "$scale" --width 1600 --height 1000
until_ "'open' in r and len(j['view']) == 4 and j['view'][2] > j['view'][0]" "the lab's main view"
center() { q "'%d %d' % ((r['$1'][0] + r['$1'][2]) / 2, (r['$1'][1] + r['$1'][3]) / 2)"; }
click() { app_click "$(center "$1")" || fail "the click on $1 was not seen"; }
# Points of the main view whose hover shows a tooltip (a dial, a cell, a strip's token).
tooltip_points() {  # GRID YMIN [AREA]: a GRID x GRID scan of AREA (default the main view)
  local p found="" area="${3:-j['view']}"   # below y=YMIN, on the window
  for p in $(q "' '.join('%d,%d' % (x, y) for v in [$area] for b in range($1) for a in range($1) for x in [v[0] + (v[2] - v[0]) * (a + 0.5) / $1] for y in [v[1] + (v[3] - v[1]) * (b + 0.5) / $1] if y >= $2 and x < j['display'][0] - 1 and y < j['display'][1] - 1)"); do
    app_move ${p/,/ } || fail "the pointer never reached $p"
    [ "$(q "j['tooltip']")" = 1 ] && found="$found $p"
  done
  echo $found
}
if [ "$mode" = modal ]; then
  # The whole window below the preset bar (the dream strip lies outside the main view), with
  # rows closer than the strips' height.
  points=$(tooltip_points 18 0 "[0, r['open'][3] + 2, j['display'][0], j['display'][1]]")
  [ -n "$points" ] || fail "no point of the main view shows a tooltip"
  click open
  until_ "'save.picture' in r and 'popup' in r" "the Share popup"
  shown=""
  for p in $points; do
    x=${p%,*}; y=${p#*,}
    # Points under the popup itself are the popup's.
    [ "$(q "int(r['popup'][0] <= $x <= r['popup'][2] and r['popup'][1] <= $y <= r['popup'][3])")" = 1 ] && continue
    app_move "$x" "$y" || fail "the pointer never reached $p"
    [ "$(q "j['tooltip']")" = 1 ] && shown="$shown $p"
  done
  [ -z "$shown" ] || fail "tooltips under the modal Share popup at$shown"
  app_quit || fail "exit $? at Quit"
  echo "$name: ok (no tooltip under the modal at $(wc -w <<<"$points") tooltip points)"
  exit 0
fi
# The popup is dragged by its title bar, which the pointer cannot take above the screen: the
# Save button's centre can go no higher than its offset below that grip.
click open
until_ "'save.picture' in r and 'popup' in r" "the Share popup"
reach=$(q "int((r['save.picture'][1] + r['save.picture'][3]) / 2 - r['popup'][1] - 6 * $scale + 4)")
click close
until_ "'close' not in r" "the popup closed"
target=$(tooltip_points 7 "$reach" | cut -d' ' -f1)
[ -n "$target" ] || fail "no point of the main view below y=$reach shows a tooltip"
tx=${target%,*}; ty=${target#*,}
# Open Share again and drag the popup (grip: the right end of its title bar) so that the
# Save button's centre lies on the point.
click open
until_ "'save.picture' in r and 'popup' in r" "the Share popup again"
for attempt in 1 2 3; do
  read -r gx gy dx dy <<<"$(q "'%d %d %d %d' % (r['popup'][2] - 40 * $scale, r['popup'][1] + 6 * $scale, $tx - (r['save.picture'][0] + r['save.picture'][2]) / 2, $ty - (r['save.picture'][1] + r['save.picture'][3]) / 2)")"
  [ "${dx#-}" -le 2 ] && [ "${dy#-}" -le 2 ] && break
  app_move "$gx" "$gy" || fail "the pointer never reached the grip"
  xdotool mousedown --window "$wid" 1
  until_ "j['mouse_down']" "the button down on the grip"
  for k in 1 2 3 4 5 6 7 8; do
    app_move $((gx + dx * k / 8)) $((gy + dy * k / 8)) || fail "the drag stalled"
  done
  xdotool mouseup --window "$wid" 1
  until_ "not j['mouse_down'] and j['frame'] > j['mouse_frame']" "the button up"
done
until_ "abs((r['save.picture'][0] + r['save.picture'][2]) / 2 - $tx) <= 3 and abs((r['save.picture'][1] + r['save.picture'][3]) / 2 - $ty) <= 3" "the Save button on the point $tx,$ty"
app_move "$tx" "$ty" || fail "the pointer never reached the Save button"
c0=$(q "j['clicks']")
xdotool click --window "$wid" 1
# The frames after the capture: the popup comes back while the lab draws its tooltip. The
# hook is written at the end of a frame, so the popup seen back means that frame was drawn.
if ! hook_wait "j['clicks'] > $c0 and j['status'].startswith('Saved the picture') and 'close' in r" "the popup back, saying the picture is saved"; then
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"; rc=$?
    fail "the app ended (exit $rc) after Save: $(grep -a -m1 -i 'assert\|abort' "$OUT/$name.err")"
  fi
  fail "the popup never came back saying the picture is saved"
fi
[ -s "$OUT/poslab-${preset%%\?*}.png" ] || fail "no picture written"
rm -f "$OUT/poslab-${preset%%\?*}.png"
app_quit; rc=$?
[ "$rc" = 0 ] || fail "exit $rc at Quit after Save: $(grep -a -m1 -i 'assert\|abort' "$OUT/$name.err")"
echo "$name: ok (Save over the tooltip point $tx,$ty)"
EOS

status=0
for c in "rope?dim=64 1 dial-1x" "rope?dim=64 2 dial-2x" "attention?source=count&tokens=12 1 cell-1x" \
         "attention?source=count&tokens=12 2 cell-2x" "kv 1 kv-modal modal" "dreams 1 dreams-modal modal"; do
  set -- $c
  [ "$only" = "  " ] || [[ "$only" == *" $3 "* ]] || continue
  on_fresh_server "$tmp/case.sh" "$@" || status=1
done
[ "$status" = 0 ] && echo ok
exit "$status"
