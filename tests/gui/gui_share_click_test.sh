#!/usr/bin/env bash
# The Share popup driven as a user drives it (issue 16), with xdotool under Xvfb: open it
# from the preset bar, choose 2x, save the picture, the CSV and the JSON (a typed file name)
# into a folder, then save onto existing files: the question appears, "Keep it" keeps the
# old file, "Replace" replaces it. Copy says so; Close closes; File > Export and share...
# opens it again. Then in every lab: the popup opens, fits the window and no two of its
# controls overlap. Controls are found through the app's test hook POSLAB_WIDGET_RECTS
# (their rectangles as drawn), not fixed pixels, and every step waits for the state the hook
# reports (x_window.sh), never a number of seconds. The folder of the last file written is
# kept: the settings autosave writes it while the app runs, and a declined save (Keep it)
# leaves it. Usage: gui_share_click_test.sh POSLAB CLI
# POSLAB_KEEP_SHOT=<dir> keeps the screenshots (popup open) to look at.
set -u
app="$1"; cli="$2"
command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never touch the user's files
export POSLAB_WIDGET_RECTS="$tmp/rects.json" APP="$app" OUT="$tmp/out" OUT2="$tmp/out2"
mkdir -p "$OUT" "$OUT2" "$XDG_CONFIG_HOME/poslab"
# The folder the popup proposes (the last one exported to).
printf '{"export_dir": "%s"}\n' "$OUT" > "$XDG_CONFIG_HOME/poslab/settings.json"
. "$(dirname "$0")/x_window.sh"   # app_start, on_fresh_server

cat > "$tmp/lib.sh" <<'EOS'
rects="$POSLAB_WIDGET_RECTS"
. "$X_WINDOW_SH"
# start PRESET SHOT: the app on a preset in a 1600x1000 window, its first frames drawn.
start() {
  rm -f "$rects"
  app_start "$2.err" --preset "$1" --width 1600 --height 1000 --screenshot-at-quit "$2"
}
# q EXPR: a Python expression over the hook's JSON (j = all of it, r = the rectangles).
q() { hook_eval "$1"; }
quit() { app_quit; }
fail() { echo "$1"; quit; exit 1; }
# until_ EXPR WHAT: waits for EXPR to hold (x_window.sh's ceiling: a loaded machine).
until_() { hook_wait "$1" "$2" || fail "timed out waiting for $2 (hook: $(cat "$rects" 2>/dev/null))"; }
# until_file FILE: waits for FILE to be written.
until_file() {
  local until=$((SECONDS + CEILING))
  while [ "$SECONDS" -lt "$until" ]; do [ -s "$1" ] && return 0; sleep 0.2; done
  fail "$1 was not written (hook: $(cat "$rects" 2>/dev/null))"
}
# saved_dir DIR WHAT: waits for settings.json (autosaved while the app runs) to hold
# export_dir = DIR.
saved_dir() {
  local until=$((SECONDS + CEILING))
  while [ "$SECONDS" -lt "$until" ]; do
    [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("export_dir"))' \
         "$XDG_CONFIG_HOME/poslab/settings.json" 2>/dev/null)" = "$1" ] && return 0
    sleep 0.2
  done
  fail "$2: settings.json says $(cat "$XDG_CONFIG_HOME/poslab/settings.json")"
}
# click NAME: the centre of the control the hook calls NAME, once the app has seen the click.
click() {
  until_ "'$1' in r" "the control $1"
  app_click "$(q "'%d %d' % ((r['$1'][0] + r['$1'][2]) / 2, (r['$1'][1] + r['$1'][3]) / 2)")" ||
    fail "the click on $1 was not seen"
}
# The popup fits the window, every control lies inside it and no two controls overlap.
layout_problems() {
  python3 - "$rects" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))["rects"]
p = r["popup"]
if p[0] < 0 or p[1] < 0 or p[2] > 1600 or p[3] > 1000: print("popup outside the window:", p)
c = {k: v for k, v in r.items() if k not in ("popup", "open")}
for k, v in c.items():
    if v[0] < p[0] or v[1] < p[1] or v[2] > p[2] or v[3] > p[3]: print(k, v, "sticks out of the popup", p)
ks = sorted(c)
for i, a in enumerate(ks):
    for b in ks[i + 1:]:
        A, B = c[a], c[b]
        if A[0] < B[2] and B[0] < A[2] and A[1] < B[3] and B[1] < A[3]: print(a, A, "overlaps", b, B)
EOP
}
EOS

cat > "$tmp/session.sh" <<'EOS'
. "$(dirname "$0")/lib.sh"
start 'rope?dim=64' "$OUT/session.png"
click open
until_ "'close' in r and j['lab'] == 'rope'" "the popup"
click scale2
until_ "j['picture_scale'] == 2" "2x chosen"
click save.picture
until_file "$OUT/poslab-rope.png"
until_ "j['status'].startswith('Saved the picture') and 'close' in r" "the popup back, saying the picture is saved"
# The frames right after a 2x capture may still carry the capture's layout (the dials fit
# their pane from the previous frame): wake a few frames until the view's width settles.
prev=""
for i in $(seq 25); do
  app_move $((30 + i % 2)) 300 || fail "the pointer did not move"
  now=$(q "j['view']")
  [ -n "$now" ] && [ "$now" = "$prev" ] && break
  prev="$now"
done
cp "$rects" "$OUT/after-picture.json"
click save.csv
until_file "$OUT/poslab-rope.csv"
# A file name typed by hand.
click path.json
# ImGui 1.86 reads keys once a frame: Ctrl+A held until the app has seen it (app_key).
xdotool keydown --window "$wid" ctrl
app_key a || fail "Ctrl+A was not seen"
xdotool keyup --window "$wid" ctrl
xdotool type --window "$wid" --delay 20 "$OUT2/typed.json"
until_ "j['paths'][2] == '$OUT2/typed.json'" "the typed file name in the field"
click save.json
until_file "$OUT2/typed.json"
saved_dir "$OUT2" "the folder of the typed file not autosaved as export_dir"
# Onto an existing file: asked; "Keep it" keeps the old file.
echo old > "$OUT/poslab-rope.csv"
click save.csv
until_ "j['confirm'] == '$OUT/poslab-rope.csv' and 'replace' in r and 'keep' in r" "the question before replacing the CSV"
click keep
until_ "j['confirm'] == '' and 'replace' not in r" "the question gone after Keep it"
[ "$(cat "$OUT/poslab-rope.csv")" = old ] || fail "Keep it changed the file"
app_autosaved || fail "no settings autosave ran"   # nothing was written, the folder stays
saved_dir "$OUT2" "Keep it changed the remembered folder"
# "Replace" replaces it.
click save.csv
until_ "j['confirm'] == '$OUT/poslab-rope.csv'" "the question again"
click replace
until_ "j['confirm'] == '' and j['status'].startswith('Saved $OUT/poslab-rope.csv')" "the CSV replaced"
head -c 6 "$OUT/poslab-rope.csv" | grep -q '^table,' || fail "Replace did not write the CSV: $(head -c 80 "$OUT/poslab-rope.csv")"
saved_dir "$OUT" "the folder of the replaced CSV not autosaved"
# The picture too (it is rendered after the frame, at 2x again).
echo old > "$OUT/poslab-rope.png"
click save.picture
until_ "j['confirm'] == '$OUT/poslab-rope.png'" "the question before replacing the picture"
click replace
until_ "j['status'].startswith('Saved the picture') and 'close' in r" "the picture replaced"
head -c 4 "$OUT/poslab-rope.png" | grep -q PNG || fail "Replace did not write the picture"
# Copy says what it did; Close closes; File > Export and share... opens the popup again.
click copy.link
until_ "j['status'].startswith('Copied the link')" "Copy saying so"
click close
until_ "'close' not in r" "the popup closed"
app_click "20 10" || fail "the click on File was not seen"   # File
click menu.share
until_ "'close' in r" "the popup from the File menu"
# Issue 40: dragged against the top of the window by the lower part of its title bar, the
# popup keeps its title bar on the screen (it could be taken above the window and lost).
read -r gx gy <<<"$(q "'%d %d' % (r['popup'][2] - 40, r['popup'][1] + 14)")"
app_move "$gx" "$gy" || fail "the pointer did not reach the title bar"
xdotool mousedown --window "$wid" 1
until_ "j['mouse_down']" "the button down on the title bar"
app_move "$((gx - 200))" 0 || fail "the drag stalled"
xdotool mouseup --window "$wid" 1
until_ "not j['mouse_down'] and j['frame'] > j['mouse_frame'] and 'popup' in r" "the button up"
[ "$(q "int(r['popup'][1] >= 0)")" = 1 ] || fail "the popup was dragged above the window: $(q "r['popup']")"
quit
EOS

cat > "$tmp/lab.sh" <<'EOS'
. "$(dirname "$0")/lib.sh"
start "$1" "$OUT/popup-$1.png"
click open
until_ "'close' in r and j['lab'] == '$1'" "the popup in $1"
# An auto-sized popup takes its size a frame or two after it opens (a loaded machine draws
# those frames slowly): the verdict is the settled layout (the app draws until sizes stop
# changing, AppState::settle_window_sizes), polled up to the ceiling.
until=$((SECONDS + CEILING))
while [ "$SECONDS" -lt "$until" ]; do bad=$(layout_problems); [ -z "$bad" ] && break; sleep 0.2; done
[ -z "$bad" ] || fail "$1: $bad"
quit
EOS

on_fresh_server "$tmp/session.sh" || { echo "session failed: $(cat "$OUT/session.png.err" 2>/dev/null)"; exit 1; }

# The 2x picture is the main view at twice its size (plus the caption strip below).
python3 - "$OUT/poslab-rope.png" "$OUT/after-picture.json" <<'EOP' || exit 1
import json, struct, sys
data = open(sys.argv[1], "rb").read()
w, h = struct.unpack(">II", data[16:24])
v = json.load(open(sys.argv[2]))["view"]
vw, vh = v[2] - v[0], v[3] - v[1]
if abs(w - 2 * vw) > 2 or h < 2 * vh - 2:
    sys.exit(f"2x picture is {w}x{h}, the view is {vw}x{vh}")
EOP
# The typed JSON is what the CLI command shown in the popup prints.
want=$("$cli" rope --decay --preset 'rope?dim=64' --positions 10) || { echo "poslab-cli failed"; exit 1; }
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.loads(sys.argv[2]))' "$OUT2/typed.json" "$want" ||
  { echo "typed.json differs from poslab-cli rope --decay --preset 'rope?dim=64' --positions 10"; exit 1; }
leftover=$(ls "$OUT" "$OUT2" | grep -v -e '^poslab-rope\.\(png\|csv\)$' -e '^typed\.json$' -e '^session\.png' -e '^after-picture\.json$' -e '^/' -e '^$')
[ -z "$leftover" ] || { echo "left behind in the folder: $leftover"; exit 1; }

for lab in lessons rope attention kv arena dreams; do
  on_fresh_server "$tmp/lab.sh" "$lab" || { echo "lab $lab failed: $(cat "$OUT/popup-$lab.png.err" 2>/dev/null)"; exit 1; }
done
if [ -n "${POSLAB_KEEP_SHOT:-}" ]; then mkdir -p "$POSLAB_KEEP_SHOT" && cp "$OUT"/*.png "$POSLAB_KEEP_SHOT"/; fi
echo ok
