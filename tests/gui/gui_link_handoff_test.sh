#!/usr/bin/env bash
# A poslab: link opened while PosLab runs goes to the running window (app/export/
# link_handoff): the second `poslab 'poslab:...'` exits at once and no second window opens;
# the running lab shows the link's state; a bad preset becomes its banner; text that is not a
# poslab: link is refused (exit 2) and garbage on the socket changes nothing; a socket left by
# a crashed instance is replaced; Quit removes the socket. Usage: gui_link_handoff_test.sh POSLAB
set -u
app="$1"
command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run"
mkdir -m 700 -p "$XDG_RUNTIME_DIR"
export APP="$app"
. "$(dirname "$0")/x_window.sh"   # app_start, app_quit, on_fresh_server

cat > "$tmp/run.sh" <<'EOS'
. "$X_WINDOW_SH"
app="$APP"; tmp="$1"; sock="$XDG_RUNTIME_DIR/poslab-link.sock"
# A crashed instance's socket: the file is there, nobody listens.
rm -f "$sock"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$sock"
app_start "$tmp/a.err" --preset 'rope?dim=64' --width 1200 --height 800 --screenshot-at-quit "$tmp/a.png"
quit() { app_quit; }
fail() { echo "$1"; quit; exit 1; }
# send < TEXT: what the running instance answers on the socket ("closed" if it hangs up).
cat > "$tmp/send.py" <<'EOP'
import socket, sys
# The app answers between frames: slow on a loaded machine.
s = socket.socket(socket.AF_UNIX); s.settimeout(120); s.connect(sys.argv[1])
try:
    s.sendall(sys.stdin.buffer.read())
    print(s.recv(16).decode().strip() or "closed")
except (socket.timeout, ConnectionResetError, BrokenPipeError):
    print("closed")
EOP
send() { python3 "$tmp/send.py" "$sock"; }
[ "$(printf 'hello\n' | send)" = no ] || fail "garbage was not refused"
r=$(head -c 200000 /dev/zero | tr '\0' 'x' | send)
[ "$r" = no ] || [ "$r" = closed ] || fail "200 kB of garbage: answer '$r'"
[ "$(printf 'poslab:rope?dim=8\001\n' | send)" = no ] || fail "a control character was taken"
out=$(timeout "$CEILING" "$app" 'poslab:rope?dim=32' 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "second start with a link: exit $rc: $out"
grep -q "running PosLab window opened the link" <<<"$out" || fail "no word about the hand-over: $out"
out=$(timeout "$CEILING" "$app" 'not-a-link' 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "a non-link was not refused with exit 2 (exit $rc): $out"
timeout "$CEILING" "$app" 'poslab:rope?dim=3' >/dev/null 2>&1 || fail "bad preset link not handed over"
hook_wait "j['banners'] >= 1" "the bad preset's banner" || fail "the bad preset link shows no banner"
[ "$(xdotool search --name '^PosLab$' | wc -l)" -eq 1 ] || fail "a second window opened"
kill -0 $pid 2>/dev/null || fail "the running instance ended"
quit
[ ! -e "$sock" ] || { echo "the socket was left after Quit"; exit 1; }
EOS

on_fresh_server "$tmp/run.sh" "$tmp"; rc=$?
[ "$rc" -eq 0 ] || { echo "failed; running instance said: $(cat "$tmp/a.err")"; exit 1; }
grep -q "active: rope?dim=32" "$tmp/a.err" || { echo "the link's state is not shown: $(cat "$tmp/a.err")"; exit 1; }
grep -q "banner: .*head_dim = 3" "$tmp/a.err" || { echo "no banner for the bad preset: $(cat "$tmp/a.err")"; exit 1; }
if [ -n "${POSLAB_KEEP_SHOT:-}" ]; then cp "$tmp/a.png" "$POSLAB_KEEP_SHOT"; fi
echo ok
