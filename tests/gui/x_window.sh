# Sourced by the GUI tests that drive PosLab's window with xdotool under Xvfb.
#
# Nothing here sleeps for a guessed time: every step waits for a state the app reports on its
# POSLAB_WIDGET_RECTS hook (hook.py; the file is rewritten at the end of every frame), with a
# generous ceiling (POSLAB_TEST_CEILING seconds, default 180) for a loaded 2-core machine.
# In a driver script (run under Xvfb by on_fresh_server):
#   app_start ERR ARGS...  starts "$APP" ARGS in the background, its stderr into ERR; waits for
#                          its window and for its first frames (the app's POSLAB_READY_FILE
#                          hook), so clicks land on a laid-out window. Sets `pid`, `wid` and
#                          exports POSLAB_WIDGET_RECTS (a fresh file unless the test set one).
#                          No window, or no frame, within the ceiling: exit 3.
#   hook_eval EXPR         prints EXPR over the hook (j: its JSON, r: the rectangles).
#   hook_wait EXPR WHAT    waits until EXPR holds; past the ceiling or when the app ended:
#                          prints "timed out waiting for WHAT" and the hook, returns 1.
#   app_move X Y           moves the pointer there; returns once the app has drawn a frame
#                          after the one that saw it there (hover states and tooltips settled).
#   app_click "X Y"        app_move, a click, and returns once the app has drawn the frames
#                          after the one that saw the click (its result is on screen).
#   app_key KEY            presses KEY until the app has seen it down (ImGui 1.86 loses a
#                          press and release that fall between two frames), then releases it.
#   app_autosaved [N]      returns once the app has run N (default 2) more settings autosave
#                          passes (every 2 s of its time); moves the pointer to draw the
#                          frames that report them. For "nothing happened meanwhile" checks.
#   app_quit               Ctrl+Q; waits for the process and returns its exit code.
#   app_quit_timed         the same, timed (printed) and bounded to 10 s.
# In the test script:
#   on_fresh_server SCRIPT ARGS...
#                          runs `bash SCRIPT ARGS` under `xvfb-run -a`. When the X server or
#                          the window never came up (two parallel `xvfb-run -a` can race for
#                          one display number; a loaded machine can be slow to start one), it
#                          runs again on a new server, up to 3 times. A failure after the window
#                          was up is the test's verdict and is never retried.
# Both need APP (the poslab binary) exported; on_fresh_server exports X_WINDOW_SH for drivers.

X_WINDOW_SH="${X_WINDOW_SH:-$(realpath "${BASH_SOURCE[0]}")}"
export X_WINDOW_SH

HOOK_PY="$(dirname "$X_WINDOW_SH")/hook.py"
CEILING="${POSLAB_TEST_CEILING:-180}"

app_start() {
  local err="$1"; shift
  local ready; ready="$(mktemp -u /tmp/poslab-ready.XXXXXX)"
  if [ -z "${POSLAB_WIDGET_RECTS:-}" ]; then
    POSLAB_WIDGET_RECTS="$(mktemp -u /tmp/poslab-hook.XXXXXX)"
  fi
  export POSLAB_WIDGET_RECTS
  rm -f "$POSLAB_WIDGET_RECTS"
  POSLAB_READY_FILE="$ready" "$APP" "$@" >/dev/null 2>"$err" &
  pid=$!
  wid=""
  local until=$((SECONDS + CEILING))
  while [ "$SECONDS" -lt "$until" ]; do
    [ -z "$wid" ] && wid=$(xdotool search --name '^PosLab$' 2>/dev/null | head -1)
    [ -n "$wid" ] && [ -e "$ready" ] && [ -s "$POSLAB_WIDGET_RECTS" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2   # polling for the state above, not a guess
  done
  if [ -z "$wid" ] || [ ! -e "$ready" ] || [ ! -s "$POSLAB_WIDGET_RECTS" ]; then
    echo "x_window: no window or no frame (window '$wid'); $(tr '\n' ' ' < "$err" 2>/dev/null)" >&2
    kill "$pid" 2>/dev/null
    rm -f "$ready"
    exit 3
  fi
  rm -f "$ready"
  [ -n "${X_WINDOW_MARK:-}" ] && touch "$X_WINDOW_MARK"
}

hook_eval() {
  python3 "$HOOK_PY" "$POSLAB_WIDGET_RECTS" eval "$1"
}

hook_wait() {
  python3 "$HOOK_PY" "$POSLAB_WIDGET_RECTS" wait "$1" --ceiling "$CEILING" --pid "${pid:-0}" ||
    { echo "timed out waiting for $2" >&2; return 1; }
}

app_move() {
  # Off the window the pointer never arrives (xdotool clamps it to the screen): say so.
  [ "$(hook_eval "int(0 <= $1 < j['display'][0] and 0 <= $2 < j['display'][1])")" = 1 ] ||
    { echo "app_move: $1,$2 lies outside the window $(hook_eval "j['display']")" >&2; return 1; }
  # Already there: no motion event, no frames; its hover is settled.
  [ "$(hook_eval "int(j['mouse'] == [$1, $2])")" = 1 ] && return 0
  xdotool mousemove --window "$wid" "$1" "$2"
  hook_wait "j['mouse'] == [$1, $2] and j['frame'] > j['mouse_frame']" "the pointer at $1,$2"
}

app_click() {
  # shellcheck disable=SC2086  # "X Y" is two arguments
  app_move $1 || return 1
  local c0; c0=$(hook_eval "j['clicks']")
  xdotool click --window "$wid" 1
  # Its result drawn: the app asks for no more frames, or (a lab that animates) three frames
  # later, time for a tab the click opened to be selected and drawn.
  hook_wait "j['clicks'] > $c0 and j['frame'] > j['click_frame'] and (j['settled'] or j['frame'] >= j['click_frame'] + 3)" "the click at $1"
}

app_key() {
  local k0; k0=$(hook_eval "j['keys']")
  xdotool keydown --window "$wid" "$1"
  hook_wait "j['keys'] > $k0 and j['frame'] > j['key_frame']" "the key $1" || return 1
  # Keys held with it (a Ctrl the test pressed before) stay down: one key fewer is the release.
  local down; down=$(hook_eval "j['keys_down']")
  xdotool keyup --window "$wid" "$1"
  hook_wait "j['keys_down'] < $down" "the key $1 released"
}

app_autosaved() {
  local a0 i=0 until=$((SECONDS + CEILING)); a0=$(hook_eval "j['autosaves']")
  while [ "$SECONDS" -lt "$until" ]; do
    app_move $((40 + i % 2)) $((300 + i % 2)) || return 1
    [ "$(hook_eval "int(j['autosaves'] >= $a0 + ${1:-2})")" = 1 ] && return 0
    i=$((i + 1)); sleep 0.2   # polling: autosave runs between frames
  done
  echo "timed out waiting for $((${1:-2})) settings autosave passes" >&2
  return 1
}

app_quit() {
  xdotool key --window "$wid" ctrl+q
  wait "$pid"
}

# Ctrl+Q, timed: prints "quit took N ms, exit RC" and returns RC; still running 10 s after
# Ctrl+Q: killed, returns 1.
app_quit_timed() {
  local t0 t1 i rc
  kill -0 "$pid" 2>/dev/null || { echo "app ended before Quit"; return 1; }
  t0=$(date +%s%N)
  xdotool key --window "$wid" ctrl+q
  for i in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  t1=$(date +%s%N)
  if kill -0 "$pid" 2>/dev/null; then echo "still running 10 s after Ctrl+Q"; kill -9 "$pid"; return 1; fi
  wait "$pid"; rc=$?
  echo "quit took $(( (t1 - t0) / 1000000 )) ms, exit $rc"
  return "$rc"
}

on_fresh_server() {
  local mark attempt rc
  mark="$(mktemp -u /tmp/poslab-xwindow.XXXXXX)"
  for attempt in 1 2 3; do
    rm -f "$mark"
    X_WINDOW_MARK="$mark" bash "$(dirname "$X_WINDOW_SH")/xvfb.sh" bash "$@"
    rc=$?
    [ -e "$mark" ] && break     # the window was up: this is the verdict
    [ "$rc" -eq 0 ] && break    # a driver that does not start the app
    echo "x_window: attempt $attempt: the X server or the window never came up (exit $rc); again on a new server" >&2
  done
  rm -f "$mark"
  return "$rc"
}
