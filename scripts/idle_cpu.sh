#!/usr/bin/env bash
# Idle CPU of the interactive app (docs/performance.md): starts poslab under xvfb-run with
# a lab open and nothing moving, waits for start-up, then reads utime + stime of the app
# from /proc/<pid>/stat over a window. Usage: scripts/idle_cpu.sh <poslab> [lab] [seconds]
# Prints "lab <lab>: <percent> % of a core over <seconds> s". Reports, never gates.
set -u
app="$1"; lab="${2:-attention}"; secs="${3:-20}"
tmp="$(mktemp -d)"
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"
ready="$tmp/ready"   # the app's POSLAB_READY_FILE hook: its first frames are on screen
POSLAB_READY_FILE="$ready" xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --width 1600 \
  --height 1000 --panel "$lab" >/dev/null 2>&1 &
runner=$!
pid=""
until=$((SECONDS + 180))
while [ "$SECONDS" -lt "$until" ]; do  # the app is xvfb-run's child (never another user's poslab)
  pid=$(pgrep -n -x poslab -P "$runner" 2>/dev/null || true)
  [ -n "$pid" ] && break
  sleep 0.1
done
[ -n "$pid" ] || { echo "poslab did not start"; kill "$runner"; rm -rf "$tmp"; exit 1; }
until=$((SECONDS + 180))  # start-up: fonts, first frames (a generous ceiling: a busy machine)
while [ "$SECONDS" -lt "$until" ] && [ ! -e "$ready" ]; do sleep 0.1; done
[ -e "$ready" ] || { echo "poslab drew no frame"; kill "$pid"; rm -rf "$tmp"; exit 1; }
sleep 2  # the lab's first computation settles: the window measured below is the idle one
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks); sleep "$secs"; t1=$(ticks)
awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$secs" -v lab="$lab" \
  'BEGIN { printf "lab %s: %.2f %% of a core over %d s\n", lab, 100 * (b - a) / hz / s, s }'
kill "$pid" 2>/dev/null; wait "$runner" 2>/dev/null; rm -rf "$tmp"
