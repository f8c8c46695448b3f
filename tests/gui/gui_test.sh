#!/usr/bin/env bash
# GUI checks under a virtual X display (Mesa's software OpenGL). Usage:
#   gui_test.sh <poslab> <case> [args]
# Cases: check (every panel, extreme presets, optional presets file), screenshot,
# bad-preset (banner, no crash), no-display (clear message, non-zero exit),
# fault-recovery (a panel throwing inside nested scopes: banner, no abort, every lab),
# crash-loop (a crash while a lab draws; the next start opens in defaults and says so),
# bad-datasets <make_bad_dataset> (arena presets naming broken files: banner, no abort),
# settings-paths (symlink loop, long name, FIFO, unwritable dir, stale temp files),
# presets-file-bad-line (--check reports the line instead of aborting), arena-start (the
# default match waits at step 0; W takes the helm and starts it),
# quit-during-computation (Ctrl+Q during a minutes-long KV run ends the process at once,
# settings saved; the bound is generous: it checks "does not wait for the computation"),
# record <webp_info> (--record: N frames decode to N with libwebp's decoder, for the arena
# and the dream lab; an existing file needs --overwrite and stays untouched; a missing or
# unwritable folder is refused naming the path; no temporary file is left), record-click
# <webp_info> (Record and Stop clicked in the arena: the file appears, complete), sigterm
# (kill -TERM is a quit: no start marker, no socket left, no crash banner next time),
# bad-data-dir (a wrong POSLAB_DATA_DIR: built-in English words, the banner names the variable),
# window-icon (the window has PosLab's icon at several sizes), check-missing-data (--check
# fails naming a model, the held-out text or lm_eval.json removed from a copy of the data),
# help-panels (--help's --panel list names every lab).
set -u
app="$1"; case_="$2"; shift 2
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never touch the user's files
xvfb=(bash "$(dirname "$0")/xvfb.sh")   # the app's own exit code, xvfb-run's hiccups retried
export APP="$app"
. "$(dirname "$0")/x_window.sh"   # app_start, app_click, app_quit, on_fresh_server

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
  help-panels)
    # Issue 40: --help's --panel list names every lab (taken from the panel registry).
    out=$("$app" --help 2>&1) || { echo "--help failed: $out"; exit 1; }
    line=$(grep -- '--panel' <<<"$out")
    for lab in welcome lessons rope attention kv arena dreams length; do
      grep -qw "$lab" <<<"$line" || { echo "--help's --panel list lacks $lab: $line"; exit 1; }
    done
    ;;
  no-display)
    err=$(env -u DISPLAY -u WAYLAND_DISPLAY "$app" --frames 1 2>&1); rc=$?
    [ "$rc" -ne 0 ] || { echo "exit 0 without a display"; exit 1; }
    [ "$rc" -lt 128 ] || { echo "crashed (exit $rc) without a display"; exit 1; }
    grep -q "xvfb-run" <<<"$err" || { echo "message does not say how to run headless: $err"; exit 1; }
    ;;
  fault-recovery)
    for lab in rope kv attention arena lessons; do
      err=$("${xvfb[@]}" "$app" --panel "$lab" --test-fault "$lab:throw" --frames 8 2>&1 >/dev/null); rc=$?
      [ "$rc" -eq 0 ] || { echo "lab $lab: app exited $rc after a panel threw: $err"; exit 1; }
      grep -q "test fault injected" <<<"$err" || { echo "lab $lab: no banner for the fault: $err"; exit 1; }
    done
    ;;
  crash-loop)
    cfg="$XDG_CONFIG_HOME/poslab"; mkdir -p "$cfg"
    preset='arena?seed=7&helm=2'
    printf '{"active_lab":"arena","open_labs":["rope","arena"],"last_preset":{"arena":"%s"}}\n' "$preset" > "$cfg/settings.json"
    # 1. The lab crashes the whole process while drawing (a real abort, as a library crash would).
    "${xvfb[@]}" "$app" --settings --test-fault arena:abort --frames 5 >/dev/null 2>&1; rc=$?
    [ "$rc" -ne 0 ] || { echo "the injected abort did not end the process"; exit 1; }
    ls "$cfg"/running.* >/dev/null 2>&1 || { echo "no start marker left by the crashed start"; exit 1; }
    # 2. The next start notices, opens the labs in defaults, says so, and keeps the saved state.
    err=$("${xvfb[@]}" "$app" --settings --frames 5 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 0 ] || { echo "start after a crash exited $rc: $err"; exit 1; }
    grep -q "did not finish" <<<"$err" || { echo "no banner about the unfinished start: $err"; exit 1; }
    grep -q "active: arena" <<<"$err" && ! grep -q "active: .*seed=7" <<<"$err" ||
      { echo "the crashing state was restored: $err"; exit 1; }
    grep -q "seed=7" "$cfg/settings.json" || { echo "the saved state was lost"; cat "$cfg/settings.json"; exit 1; }
    ! ls "$cfg"/running.* >/dev/null 2>&1 || { echo "clean end left the start marker"; exit 1; }
    # 3. After a clean end, everything is restored again.
    err=$("${xvfb[@]}" "$app" --settings --frames 5 2>&1 >/dev/null)
    ! grep -q "did not finish" <<<"$err" || { echo "banner after a clean end: $err"; exit 1; }
    grep -q "active: arena?.*seed=7" <<<"$err" || { echo "state not restored after a clean end: $err"; exit 1; }
    ;;
  bad-datasets)
    maker="$1"
    for kind in truncated version magic shape missing corrupt; do
      "$maker" "$kind" "$tmp/$kind.h5" || { echo "make_bad_dataset $kind failed"; exit 1; }
      err=$("${xvfb[@]}" "$app" --preset "arena?source=file&file=$tmp/$kind.h5&row=3" --frames 8 2>&1 >/dev/null); rc=$?
      [ "$rc" -eq 0 ] || { echo "$kind dataset: app exited $rc: $err"; exit 1; }
      [ "$kind" = corrupt ] || grep -q "banner: .*$kind.h5" <<<"$err" ||
        { echo "$kind dataset: no banner naming the file: $err"; exit 1; }
    done
    # A preset naming something that is not a regular file is refused without blocking.
    mkfifo "$tmp/fifo.h5"
    err=$(timeout 60 "${xvfb[@]}" "$app" --preset "arena?source=file&file=$tmp/fifo.h5" --frames 5 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 0 ] || { echo "FIFO dataset: app exited $rc (124 = blocked): $err"; exit 1; }
    grep -q "banner: .*fifo.h5.*not a regular file" <<<"$err" || { echo "FIFO dataset: no banner: $err"; exit 1; }
    ;;
  file-approval)
    # A preset from elsewhere (pasted, a lesson link) naming a file: shown, not opened until
    # the user approves. The same preset from the command line opens the file.
    maker="$1"
    "$maker" truncated "$tmp/t.h5" || exit 1
    err=$("${xvfb[@]}" "$app" --untrusted-preset "arena?source=file&file=$tmp/t.h5" --frames 5 --screenshot "$tmp/a.png" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 0 ] || { echo "untrusted preset: exit $rc: $err"; exit 1; }
    ! grep -q "banner: .*t.h5" <<<"$err" || { echo "a pasted preset's file was opened without approval: $err"; exit 1; }
    grep -q "active: arena?.*file=" <<<"$err" || { echo "the preset was not loaded: $err"; exit 1; }
    err=$("${xvfb[@]}" "$app" --preset "arena?source=file&file=$tmp/t.h5" --frames 5 2>&1 >/dev/null)
    grep -q "banner: .*t.h5" <<<"$err" || { echo "a command-line preset's file was not opened: $err"; exit 1; }
    ;;
  settings-paths)
    run() { timeout 60 "${xvfb[@]}" "$app" --settings --frames 3 2>&1 >/dev/null; }
    cfg="$XDG_CONFIG_HOME/poslab"; mkdir -p "$cfg"
    # A full disk (a file size limit of 0: every write of a byte fails): the headless run says
    # the settings were not saved and exits 2 (issue 36: it exited 0).
    err=$(timeout 60 "${xvfb[@]}" bash -c 'trap "" XFSZ; ulimit -f 0; exec "$@"' _ \
          "$app" --settings --frames 3 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && grep -q "settings not saved" <<<"$err" || { echo "full disk: exit $rc: $err"; exit 1; }
    rm -f "$cfg"/settings.json*
    # A FIFO named settings.json: never opened (opening it would block forever).
    mkfifo "$cfg/settings.json"
    err=$(run); rc=$?
    # Never replaced either: said, and the exit code (issue 36: a failed save exited 0).
    [ "$rc" -eq 2 ] && grep -q "settings not saved" <<<"$err" ||
      { echo "FIFO settings: exit $rc (124 = blocked): $err"; exit 1; }
    grep -q "settings.json is a FIFO" <<<"$err" || { echo "FIFO settings: no banner: $err"; exit 1; }
    rm -f "$cfg/settings.json"
    # A symlink loop.
    ln -s settings.json "$cfg/settings.json"
    err=$(run); rc=$?
    [ "$rc" -eq 2 ] && grep -q "settings not saved" <<<"$err" || { echo "symlink loop: exit $rc: $err"; exit 1; }
    grep -q "settings.json cannot be examined" <<<"$err" || { echo "symlink loop: no banner: $err"; exit 1; }
    rm -f "$cfg/settings.json"
    # A configuration path whose name is too long.
    long="$tmp/$(printf 'x%.0s' $(seq 300))"
    err=$(XDG_CONFIG_HOME="$long" run); rc=$?
    # Nothing can be saved there: said, and the exit code (issue 36: it was 0).
    [ "$rc" -eq 2 ] && grep -q "settings not saved" <<<"$err" || { echo "long name: exit $rc: $err"; exit 1; }
    grep -q "banner: settings" <<<"$err" || { echo "long name: no banner: $err"; exit 1; }
    # A directory named settings.json: cannot be read or replaced; reported, no abort.
    mkdir "$cfg/settings.json"
    err=$(run); rc=$?
    [ "$rc" -eq 2 ] && grep -q "settings not saved" <<<"$err" || { echo "directory settings: exit $rc: $err"; exit 1; }
    grep -q "settings.json is a directory" <<<"$err" || { echo "directory settings: no banner: $err"; exit 1; }
    rmdir "$cfg/settings.json"
    # Permission denied (only testable when not root: root reads everything).
    if [ "$(id -u)" -ne 0 ]; then
      echo '{}' > "$cfg/settings.json"; chmod 000 "$cfg/settings.json"
      err=$(run); rc=$?
      [ "$rc" -eq 0 ] || { echo "unreadable settings: exit $rc: $err"; exit 1; }
      grep -q "banner: settings" <<<"$err" || { echo "unreadable settings: no banner: $err"; exit 1; }
      chmod 600 "$cfg/settings.json"
    fi
    # Temporary files of atomic writes left by a kill are removed at the next start; one of a
    # running process is left alone.
    sleep 1000 & live=$!
    mkdir -p "$XDG_DATA_HOME/poslab"
    touch "$cfg/settings.json.tmp.999999999" "$cfg/settings.json.tmp.$live" "$XDG_DATA_HOME/poslab/progress.json.tmp.999999998"
    run >/dev/null
    kill "$live"
    [ ! -e "$cfg/settings.json.tmp.999999999" ] || { echo "stale temp file in config dir kept"; exit 1; }
    [ ! -e "$XDG_DATA_HOME/poslab/progress.json.tmp.999999998" ] || { echo "stale temp file in data dir kept"; exit 1; }
    [ -e "$cfg/settings.json.tmp.$live" ] || { echo "temp file of a live process removed"; exit 1; }
    ;;
  presets-file-bad-line)
    printf 'rope?dim=64\n# comment\nnot a preset at all ?&=\nrope?dim=abc\n' > "$tmp/presets.txt"
    out=$("${xvfb[@]}" "$app" --check --presets-file "$tmp/presets.txt" 2>&1); rc=$?
    [ "$rc" -eq 1 ] || { echo "expected exit 1 (failures reported), got $rc: $out" | tail -5; exit 1; }
    grep -q "FAIL .*presets.txt:3: " <<<"$out" || { echo "bad line 3 not reported with its number: $out" | tail -5; exit 1; }
    grep -q "FAIL panel=rope preset=rope?dim=abc" <<<"$out" || { echo "bad value on line 4 not reported: $out" | tail -5; exit 1; }
    grep -q "ok   panel=rope preset=rope?dim=64" <<<"$out" || { echo "good line not run: $out" | tail -5; exit 1; }
    ;;
  quit-during-computation)
    command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
    cat > "$tmp/quit.sh" <<'EOS'
. "$X_WINDOW_SH"
app_start "$1" --preset 'kv?steps=500&C=512&layers=4&width=256&heads=16'
# The run starts with the lab's first frame; app_start returns after the first frames.
app_quit_timed
EOS
    on_fresh_server "$tmp/quit.sh" "$tmp/quit.err" || { echo "quit failed: $(cat "$tmp/quit.err")"; exit 1; }
    grep -q '"active_lab": "kv"' "$XDG_CONFIG_HOME/poslab/settings.json" || { echo "settings not saved at Quit"; exit 1; }
    ;;
  banner)
    # A lab's error is on its own banner: the Dismiss button hides it; changing the lab's
    # state (Reset to defaults) clears it. Clicks with xdotool at 1600x1000, scale 1.
    command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
    cat > "$tmp/click.sh" <<'EOS'
. "$X_WINDOW_SH"
out="$1"; shift
app_start "$out.err" --preset 'rope?dim=3' --width 1600 --height 1000 --screenshot-at-quit "$out"
for p in "$@"; do app_click "$p"; done
app_quit
EOS
    on_fresh_server "$tmp/click.sh" "$tmp/none.png" || { echo "app failed: $(cat "$tmp/none.png.err")"; exit 1; }
    grep -q "banner: opening Rotary wheels: head_dim = 3" "$tmp/none.png.err" || { echo "no banner on the rope tab: $(cat "$tmp/none.png.err")"; exit 1; }
    grep -q "active: rope" "$tmp/none.png.err" || { echo "the lab asked for is not shown: $(cat "$tmp/none.png.err")"; exit 1; }
    on_fresh_server "$tmp/click.sh" "$tmp/dismiss.png" "43 115" || { echo "app failed: $(cat "$tmp/dismiss.png.err")"; exit 1; }
    ! grep -q "banner:" "$tmp/dismiss.png.err" || { echo "Dismiss did not hide the message: $(cat "$tmp/dismiss.png.err")"; exit 1; }
    on_fresh_server "$tmp/click.sh" "$tmp/reset.png" "1422 67" || { echo "app failed: $(cat "$tmp/reset.png.err")"; exit 1; }
    ! grep -q "banner:" "$tmp/reset.png.err" || { echo "message stayed after the state changed: $(cat "$tmp/reset.png.err")"; exit 1; }
    ;;
  lab-link)
    # A link that opens a lab (here the welcome page's "Watch RoPE turn"; lesson and quiz
    # links call the same AppContext::open_lab) opens the lab's tab, selects it with the
    # state, and "< Back to ..." returns. Clicks with xdotool at the welcome page's layout,
    # each scenario from a first start (the welcome page).
    command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
    cat > "$tmp/click.sh" <<'EOS'
. "$X_WINDOW_SH"
out="$1"; shift
rm -rf "$XDG_CONFIG_HOME/poslab"
app_start "$out.err" --width 1600 --height 1000 --screenshot-at-quit "$out"
for p in "$@"; do app_click "$p"; done
app_quit
EOS
    on_fresh_server "$tmp/click.sh" "$tmp/a.png" "117 203" &&
      grep -q "active: rope?dim=16&.*play=1" "$tmp/a.png.err" ||
      { echo "link did not open and select the lab: $(cat "$tmp/a.png.err")"; exit 1; }
    on_fresh_server "$tmp/click.sh" "$tmp/b.png" "117 203" "75 67" &&
      grep -q "active: welcome" "$tmp/b.png.err" ||
      { echo "Back did not return to the page with the link: $(cat "$tmp/b.png.err")"; exit 1; }
    ;;
  arena-start)
    # Issue 24: the default match waits for the player ("take the helm: press W"): 60 frames
    # leave it at step 0. The first W takes the helm (team 0's first ship) and starts it.
    row_of() { sed -n 's/^row,//p' "$1" | head -1; }
    "${xvfb[@]}" "$app" --preset arena --frames 60 --export-numbers "$tmp/idle.csv" 2>"$tmp/idle.err" ||
      { echo "app failed: $(cat "$tmp/idle.err")"; exit 1; }
    [ "$(row_of "$tmp/idle.csv")" = 0 ] || { echo "the default match ran to step $(row_of "$tmp/idle.csv") unstarted"; exit 1; }
    grep -q "active: arena$" "$tmp/idle.err" || { echo "not the default match: $(cat "$tmp/idle.err")"; exit 1; }
    command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
    cat > "$tmp/w.sh" <<'EOS'
. "$X_WINDOW_SH"
out="$1"
app_start "$out.err" --width 1600 --height 1000 --preset arena --screenshot-at-quit "$out"
app_move 700 600 || exit 1
app_key w || exit 1   # held until the app has seen it, then released
app_quit
EOS
    on_fresh_server "$tmp/w.sh" "$tmp/w.png" || { echo "app failed: $(cat "$tmp/w.png.err")"; exit 1; }
    active=$(grep "active:" "$tmp/w.png.err" | tail -1)
    echo "$active"
    for kv in play=1 helm=0; do
      grep -q "[?&]$kv" <<<"$active" || { echo "W did not start the match at the helm: no $kv"; exit 1; }
    done
    ;;
  dream-from-here)
    # The arena's "Dream from here" opens the dream lab on the same fight: seed and team
    # sizes of the arena's episode, the dream starting at the step the arena had reached.
    command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
    cat > "$tmp/dream.sh" <<'EOS'
. "$X_WINDOW_SH"
out="$1"
app_start "$out.err" --width 1600 --height 1000 --preset 'arena?seed=11&team0=2&team1=3&play=1&speed=4' --screenshot-at-quit "$out"
hook_wait "j['frame'] >= 30" "30 frames of the fight (past step 0)" || exit 1
app_click "78 360" || exit 1
hook_wait "j['active'] == 'dreams'" "the dream lab's tab" || exit 1
app_quit
EOS
    on_fresh_server "$tmp/dream.sh" "$tmp/d.png" || { echo "app failed: $(cat "$tmp/d.png.err")"; exit 1; }
    active=$(grep "active:" "$tmp/d.png.err" | tail -1)
    echo "$active"
    grep -q "active: dreams?" <<<"$active" || { echo "Dream from here did not open the dream lab"; exit 1; }
    for kv in seed=11 team0=2 team1=3 'from=[1-9]'; do
      grep -q "[?&]$kv" <<<"$active" || { echo "the dream lab's preset lacks $kv"; exit 1; }
    done
    ;;
  export-full-disk)
    # A full disk while exporting or recording (a file-size limit makes every write past
    # 20 KB fail, as tests/reliability does for collect): exit 2 naming the file, the file
    # it would have replaced byte-for-byte intact, no temporary file left in the folder.
    out="$tmp/full"; mkdir -p "$out"
    full() { bash -c 'trap "" XFSZ; ulimit -f 20; exec "$@"' _ "${xvfb[@]}" "$app" "$@"; }
    printf 'the previous export\n' > "$out/rope.png"; printf 'the previous csv\n' > "$out/rope.csv"
    printf 'the previous video\n' > "$out/arena.webp"
    before=$(cd "$out" && sha256sum rope.png rope.csv arena.webp)
    err=$(full --preset 'rope?dim=128' --frames 5 --export-picture "$out/rope.png" --overwrite 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && grep -q "export picture: .*rope.png" <<<"$err" || { echo "picture on a full disk: exit $rc: $err"; exit 1; }
    err=$(full --preset 'rope?dim=512' --frames 5 --export-numbers "$out/rope.csv" --overwrite 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && grep -q "export numbers of rope: .*rope.csv" <<<"$err" || { echo "numbers on a full disk: exit $rc: $err"; exit 1; }
    err=$(full --preset 'arena?seed=7&speed=1&play=1' --record "$out/arena.webp" --frames 60 --overwrite 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && grep -q "record: .*arena.webp" <<<"$err" || { echo "recording on a full disk: exit $rc: $err"; exit 1; }
    [ "$(cd "$out" && sha256sum rope.png rope.csv arena.webp)" = "$before" ] || { echo "a failed write changed the previous file"; exit 1; }
    left=$(ls -A "$out" | grep -v -x -e rope.png -e rope.csv -e arena.webp)
    [ -z "$left" ] || { echo "files left behind after the failed writes: $left"; exit 1; }
    ;;
  record)
    info="$1"; out="$tmp/rec"; mkdir -p "$out"
    "${xvfb[@]}" "$app" --preset 'arena?seed=7&speed=1&play=1' --record "$out/arena.webp" --frames 40 --record-width 480 >"$out/log" 2>&1 ||
      { echo "arena recording failed: $(cat "$out/log")"; exit 1; }
    "$info" "$out/arena.webp" | grep -q '"frames": 40, .*"duration_ms": 1600' ||
      { echo "arena: not 40 frames of 40 ms: $("$info" "$out/arena.webp" 2>&1)"; exit 1; }
    "${xvfb[@]}" "$app" --preset 'dreams?seed=7' --record "$out/dream.webp" --frames 20 --record-fps 10 --record-width 480 >"$out/log" 2>&1 ||
      { echo "dream recording failed: $(cat "$out/log")"; exit 1; }
    "$info" "$out/dream.webp" | grep -q '"frames": 20, .*"duration_ms": 2000' ||
      { echo "dreams: not 20 frames of 100 ms: $("$info" "$out/dream.webp" 2>&1)"; exit 1; }
    # Issue 40: the README's command (no play= in the preset) records the fight, not the
    # paused match waiting for "take the helm": the decoded frames differ, and the printed
    # count of distinct frames says so.
    "${xvfb[@]}" "$app" --preset 'arena?seed=7&speed=1' --record "$out/fight.webp" --frames 30 --record-width 480 >"$out/log" 2>&1 ||
      { echo "README fight recording failed: $(cat "$out/log")"; exit 1; }
    grep -q '"frames": 30, .*"distinct_frames": \([2-9]\|[1-9][0-9]\)' "$out/log" ||
      { echo "README fight: not 30 frames, several distinct: $(cat "$out/log")"; exit 1; }
    n=$("$info" "$out/fight.webp" | sed -n 's/^{"frames": \([0-9]*\),.*/\1/p')
    [ "${n:-0}" -ge 2 ] || { echo "README fight: the file holds ${n:-no} frame(s): a still picture"; exit 1; }
    "$info" "$out/fight.webp" --frame 0 "$out/first.png" >/dev/null &&
      "$info" "$out/fight.webp" --frame $((n - 1)) "$out/last.png" >/dev/null ||
      { echo "README fight: frames do not decode"; exit 1; }
    ! cmp -s "$out/first.png" "$out/last.png" || { echo "README fight: first and last frames are equal"; exit 1; }
    rm -f "$out/fight.webp" "$out/first.png" "$out/last.png"
    sum=$(md5sum < "$out/arena.webp")
    err=$("${xvfb[@]}" "$app" --preset 'arena?seed=7' --record "$out/arena.webp" --frames 5 2>&1); rc=$?
    [ "$rc" -eq 2 ] && grep -q "exists; add --overwrite" <<<"$err" || { echo "existing file: exit $rc: $err"; exit 1; }
    [ "$(md5sum < "$out/arena.webp")" = "$sum" ] || { echo "the existing file was changed"; exit 1; }
    "${xvfb[@]}" "$app" --preset 'arena?seed=8&speed=1&play=1' --record "$out/arena.webp" --frames 5 --overwrite >/dev/null 2>&1 &&
      "$info" "$out/arena.webp" | grep -q '"frames": 5,' || { echo "--overwrite did not replace the file"; exit 1; }
    for bad in "$out/missing/a.webp" "/sys/poslab-test.webp"; do
      err=$("${xvfb[@]}" "$app" --preset 'arena?seed=7' --record "$bad" --frames 5 2>&1); rc=$?
      [ "$rc" -eq 2 ] && grep -q "$bad: the folder .* \(does not exist\|is not writable\)" <<<"$err" ||
        { echo "bad folder $bad: exit $rc: $err"; exit 1; }
      [ ! -e "$bad" ] || { echo "a file appeared at $bad"; exit 1; }
    done
    leftover=$(ls "$out" | grep -v -x -e arena.webp -e dream.webp -e log)
    [ -z "$leftover" ] || { echo "left behind: $leftover"; exit 1; }
    ;;
  record-click)
    # Record, wait, Stop in the arena's controls (1600x1000, scale 1; practice, so no episode
    # ends and moves the buttons while it records); the worker writes the
    # default file while the app keeps running; Quit only once it is there.
    command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
    info="$1"; file="$XDG_DATA_HOME/poslab/recordings/arena.webp"
    cat > "$tmp/click.sh" <<'EOS'
. "$X_WINDOW_SH"
file="$1"; log="$2"
app_start "$log.err" --preset 'arena?seed=7&speed=1&practice=1&play=1' --width 1600 --height 1000 --screenshot-at-quit "$log.png"
app_click "35 782" || exit 1   # Record (below "score so far", which wraps to two lines)
f=$(hook_eval "j['frame']")
hook_wait "j['frame'] >= $f + 20" "20 frames recorded" || exit 1
app_click "35 782" || exit 1                                                          # Stop
until=$((SECONDS + CEILING))
while [ "$SECONDS" -lt "$until" ] && [ ! -f "$file" ]; do sleep 0.2; done   # written atomically
app_quit
EOS
    on_fresh_server "$tmp/click.sh" "$file" "$tmp/app" || { echo "app failed: $(cat "$tmp/app.err")"; exit 1; }
    [ -f "$file" ] || { echo "Record/Stop wrote no file: $(cat "$tmp/app.err")"; exit 1; }
    # Software GL renders a few frames a second: the lab plays slower while it records (the
    # video keeps 40 ms a frame), so only "some frames, whole file" is checked here.
    "$info" "$file" | grep -q '"frames": [1-9]' || { echo "no frames: $("$info" "$file" 2>&1)"; exit 1; }
    if [ -n "${POSLAB_KEEP_SHOT:-}" ]; then cp "$tmp/app.png" "$POSLAB_KEEP_SHOT"; fi  # to look at
    ;;
  hostile-start)
    # docs/reliability.md: interface texts corrupt (invalid UTF-8, TOML error, a FIFO) or
    # missing start in English with a banner naming the file; a 100 KB preset and a garbage
    # poslab: link are a banner / exit 2, never a crash.
    run() { timeout 120 "${xvfb[@]}" "$app" --frames 3 "$@" 2>&1 >/dev/null; }
    cp -r "$(dirname "$0")/../../assets/i18n" "$tmp/i18n" || exit 1
    export POSLAB_ASSETS_DIR="$tmp"
    printf '[menu]\nfile = "\xff\xfe"\n' > "$tmp/i18n/zh/shell.toml"
    err=$(run --language zh --screenshot "$tmp/zh.png"); rc=$?
    [ "$rc" -eq 0 ] || { echo "corrupt zh/shell.toml: exit $rc: $err"; exit 1; }
    grep -q "banner: interface texts: .*zh/shell.toml" <<<"$err" || { echo "corrupt zh: no banner: $err"; exit 1; }
    rm "$tmp/i18n/zh/shell.toml"; mkfifo "$tmp/i18n/zh/shell.toml"
    err=$(run --language zh); rc=$?
    [ "$rc" -eq 0 ] || { echo "FIFO zh/shell.toml: exit $rc (124 = blocked): $err"; exit 1; }
    grep -q "banner: interface texts: .*zh/shell.toml" <<<"$err" || { echo "FIFO zh: no banner: $err"; exit 1; }
    rm -rf "$tmp/i18n/zh"
    err=$(run --language zh); rc=$?
    [ "$rc" -eq 0 ] || { echo "missing zh/: exit $rc: $err"; exit 1; }
    grep -q "banner: interface texts: .*zh" <<<"$err" || { echo "missing zh: no banner: $err"; exit 1; }
    unset POSLAB_ASSETS_DIR
    err=$(run --preset "rope?dim=64&$(head -c 100000 /dev/zero | tr '\0' x)"); rc=$?
    [ "$rc" -eq 0 ] || { echo "100 KB preset: exit $rc: $(head -c 300 <<<"$err")"; exit 1; }
    grep -q "banner:" <<<"$err" || { echo "100 KB preset: no banner"; exit 1; }
    for link in $'poslab:\xff\xfe?%%=&&==' 'poslab:' 'poslab:rope?dim=%zz' "poslab:$(head -c 100000 /dev/zero | tr '\0' '?')"; do
      err=$(run "$link"); rc=$?
      [ "$rc" -eq 2 ] || { echo "link $(head -c 40 <<<"$link"): exit $rc (2 expected): $(head -c 300 <<<"$err")"; exit 1; }
    done
    ;;
  sigterm)
    # Issue 40: SIGTERM (a logout, `kill`) is a quit, not a crash: the settings are saved, the
    # start marker and the link socket are gone, and the next start says nothing of a crash.
    command -v xdotool >/dev/null || { echo "xdotool missing (apt-get install xdotool)"; exit 1; }
    export XDG_RUNTIME_DIR="$tmp/run"; mkdir -m 700 -p "$XDG_RUNTIME_DIR"
    cat > "$tmp/term.sh" <<'EOS'
. "$X_WINDOW_SH"
app_start "$1" --preset 'rope?dim=32'
ls "$XDG_CONFIG_HOME"/poslab/running.* >/dev/null 2>&1 || { echo "no start marker while running"; kill -9 $pid; exit 1; }
[ -S "$XDG_RUNTIME_DIR/poslab-link.sock" ] || { echo "no link socket while running"; kill -9 $pid; exit 1; }
kill -TERM $pid
wait $pid; echo "exit $?" > "$1.rc"
EOS
    on_fresh_server "$tmp/term.sh" "$tmp/term.err" || { echo "run failed: $(cat "$tmp/term.err")"; exit 1; }
    grep -qx "exit 0" "$tmp/term.err.rc" || { echo "SIGTERM: $(cat "$tmp/term.err.rc") (a quit exits 0): $(cat "$tmp/term.err")"; exit 1; }
    ! ls "$XDG_CONFIG_HOME"/poslab/running.* >/dev/null 2>&1 || { echo "SIGTERM left the start marker"; exit 1; }
    [ ! -e "$XDG_RUNTIME_DIR/poslab-link.sock" ] || { echo "SIGTERM left the link socket"; exit 1; }
    grep -q 'rope?[^"]*dim=32' "$XDG_CONFIG_HOME/poslab/settings.json" || { echo "settings not saved at SIGTERM"; exit 1; }
    err=$("${xvfb[@]}" "$app" --settings --frames 5 2>&1 >/dev/null)
    ! grep -q "did not finish" <<<"$err" || { echo "the start after SIGTERM speaks of a crash: $err"; exit 1; }
    grep -q "active: rope?.*dim=32" <<<"$err" || { echo "state not restored after SIGTERM: $err"; exit 1; }
    ;;
  check-missing-data)
    # Issue 40: `--check` checks every file a lab needs: in a copy of the data folder with one
    # of them removed, it fails (exit 1) naming that file.
    src="$(cd "$(dirname "$0")/../.." && pwd)"
    for f in assets/models/lm_rope.safetensors assets/models/lm_held_out.txt \
             assets/models/lm_eval.json assets/models/wm_paper_rope.safetensors; do
      rm -rf "$tmp/data"; mkdir -p "$tmp/data/assets"
      ln -s "$src/lessons" "$tmp/data/lessons"
      for d in i18n welcome icons; do ln -s "$src/assets/$d" "$tmp/data/assets/$d"; done
      mkdir "$tmp/data/assets/models"
      for m in "$src"/assets/models/*; do ln -s "$m" "$tmp/data/assets/models/"; done
      rm "$tmp/data/$f"
      out=$(POSLAB_DATA_DIR="$tmp/data" "${xvfb[@]}" "$app" --check 2>&1); rc=$?
      [ "$rc" -eq 1 ] || { echo "--check without $f: exit $rc (want 1): $(head -c 600 <<<"$out")"; exit 1; }
      grep -q "^FAIL data: .*$tmp/data/$f not found" <<<"$out" ||
        { echo "--check without $f does not name it: $(head -c 600 <<<"$out")"; exit 1; }
      echo "ok   without $f: $(grep -m1 '^FAIL data' <<<"$out")"
    done
    ;;
  window-icon)
    # Issue 40: the window has PosLab's icon at several sizes (_NET_WM_ICON, what the taskbar
    # and Alt+Tab show), from the data folder's assets/icons.
    command -v xprop >/dev/null || { echo "xprop missing (apt-get install x11-utils)"; exit 1; }
    cat > "$tmp/icon.sh" <<'EOS'
. "$X_WINDOW_SH"
app_start "$1.err" --preset 'rope?dim=32'
xprop -id "$wid" _NET_WM_ICON > "$1" 2>&1
app_quit
EOS
    on_fresh_server "$tmp/icon.sh" "$tmp/icon.txt" || { echo "run failed: $(cat "$tmp/icon.txt.err")"; exit 1; }
    for n in 16 32 64 128; do
      grep -q "Icon ($n x $n)" "$tmp/icon.txt" || { echo "no $n x $n window icon: $(head -c 300 "$tmp/icon.txt")"; exit 1; }
    done
    ;;
  bad-data-dir)
    # Issue 40: a wrong POSLAB_DATA_DIR: the app starts, its banner is in words (the English
    # built in, not text keys) and says the folder came from POSLAB_DATA_DIR.
    err=$(POSLAB_DATA_DIR="$tmp/nowhere" "${xvfb[@]}" "$app" --frames 5 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 0 ] || { echo "exit $rc with a wrong POSLAB_DATA_DIR: $err"; exit 1; }
    grep -q "banner: .*$tmp/nowhere comes from POSLAB_DATA_DIR" <<<"$err" ||
      { echo "no banner naming POSLAB_DATA_DIR: $err"; exit 1; }
    ! grep -qE "banner: *(errors|menu|banner)\.[a-z_.]+" <<<"$err" || { echo "text keys on the banner: $err"; exit 1; }
    ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
