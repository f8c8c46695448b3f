# Sourced by the GUI tests that drive PosLab's window with xdotool under Xvfb.
#
# In a driver script (run under Xvfb by on_fresh_server):
#   app_start ERR ARGS...  starts "$APP" ARGS in the background, its stderr into ERR; waits for
#                          its window and for its first frames (the app's POSLAB_READY_FILE
#                          hook), so clicks land on a laid-out window. Sets `pid` and `wid`.
#                          No window, or no frame, within 60 s: exit 3.
#   app_click "X Y"        moves the pointer there, clicks, and lets the app draw the result.
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

app_start() {
  local err="$1"; shift
  local ready; ready="$(mktemp -u /tmp/poslab-ready.XXXXXX)"
  POSLAB_READY_FILE="$ready" "$APP" "$@" >/dev/null 2>"$err" &
  pid=$!
  wid=""
  local i
  for i in $(seq 300); do
    [ -z "$wid" ] && wid=$(xdotool search --name '^PosLab$' 2>/dev/null | head -1)
    [ -n "$wid" ] && [ -e "$ready" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ -z "$wid" ] || [ ! -e "$ready" ]; then
    echo "x_window: no window or no frame (window '$wid'); $(tr '\n' ' ' < "$err" 2>/dev/null)" >&2
    kill "$pid" 2>/dev/null
    rm -f "$ready"
    exit 3
  fi
  rm -f "$ready"
  [ -n "${X_WINDOW_MARK:-}" ] && touch "$X_WINDOW_MARK"
  sleep 0.5
}

app_click() {
  # shellcheck disable=SC2086  # "X Y" is two arguments
  xdotool mousemove --window "$wid" $1
  sleep 0.4
  xdotool click --window "$wid" 1
  sleep 1.5
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
