#!/usr/bin/env bash
# The lessons panel in the real app under a virtual display. Usage:
#   gui_lessons_test.sh <poslab> <poslab-cli> <case>
# Cases: presets (every lab preset the lessons open loads in --check), broken (a broken
# lesson is reported with file and line, the app keeps running), corrupt-progress (the
# file is kept aside and the user told), bad-preset (unknown lesson: banner, no crash).
set -u
app="$1"; cli="$2"; case_="$3"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never touch the user's files
xvfb=(bash "$(dirname "$0")/../gui/xvfb.sh")   # the app's own exit code, xvfb-run's hiccups retried
lessons="$(cd "$(dirname "$0")/../../lessons" && pwd)"

case "$case_" in
  presets)
    "$cli" quiz presets --lines > "$tmp/presets.txt" || { echo "poslab-cli quiz presets failed"; exit 1; }
    [ "$(wc -l < "$tmp/presets.txt")" -ge 20 ] || { echo "too few lesson presets"; exit 1; }
    out=$("${xvfb[@]}" "$app" --check --presets-file "$tmp/presets.txt" 2>&1); rc=$?
    [ "$rc" -eq 0 ] || { grep FAIL <<<"$out"; echo "check failed (exit $rc)"; exit 1; }
    ;;
  broken)
    cp -r "$lessons" "$tmp/lessons"
    printf '[[question]]\nid = "q1"\nkind = single\n' > "$tmp/lessons/02-absolute/quiz.toml"
    out=$(POSLAB_LESSONS_DIR="$tmp/lessons" "${xvfb[@]}" "$app" --check 2>&1)
    grep -q "panel=lessons.*lesson 02-absolute is broken: .*02-absolute/quiz.toml:3: TOML syntax error" <<<"$out" ||
      { echo "broken lesson not reported with file and line: $out" | head -20; exit 1; }
    # Only the lessons panel notices; the other lessons still load and the app runs.
    POSLAB_LESSONS_DIR="$tmp/lessons" "${xvfb[@]}" "$app" --preset 'lessons?lesson=03-rope' --frames 3 >/dev/null 2>&1 ||
      { echo "app failed with one broken lesson"; exit 1; }
    ;;
  corrupt-progress)
    mkdir -p "$tmp/data/poslab"
    printf '{"format": "poslab-progress", "vers' > "$tmp/data/poslab/progress.json"
    err=$("${xvfb[@]}" "$app" --panel lessons --frames 3 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 0 ] || { echo "app exited $rc on a corrupt progress file"; exit 1; }
    grep -q "progress could not be read" <<<"$err" || { echo "user not told: $err"; exit 1; }
    ls "$tmp/data/poslab/" | grep -q '^progress.json.corrupt-' || { echo "corrupt file not kept aside"; exit 1; }
    # The banner names the kept file and how to get it back (issue 29, M4).
    grep -q "kept as .*progress.json.corrupt-.*To get it back, rename it to .*progress.json" <<<"$err" ||
      { echo "the banner does not say how to get the file back: $err"; exit 1; }
    ;;
  bad-preset)
    err=$("${xvfb[@]}" "$app" --preset 'lessons?lesson=99-nope' --frames 3 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 0 ] || { echo "app exited $rc on a bad lessons preset"; exit 1; }
    grep -q 'lessons.lesson = "99-nope": no such lesson' <<<"$err" || { echo "no banner naming the lesson: $err"; exit 1; }
    ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
