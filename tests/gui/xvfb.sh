#!/usr/bin/env bash
# Usage: xvfb.sh COMMAND ARGS...
# Runs COMMAND on a fresh virtual X server (`xvfb-run -a`, one 1600x1000x24 screen) and exits
# with COMMAND's own exit code, never with xvfb-run's. The GUI tests check exit codes (2 for
# bad input), and xvfb-run has failures of its own around the command:
# - after it: "problem while cleaning up temporary directory" turns the command's code into 5
#   (seen twice in CI, both times when the app exited with an error within a second);
# - before it: two parallel `xvfb-run -a` can pick the same display, and "Xvfb failed to start".
# So the command's code travels through a file written by the shell that ran it. When the file
# stays empty the command never ran: xvfb-run's failure to start is retried on a new server, up
# to 3 times, and then reported with xvfb-run's own code.
set -u
[ $# -ge 1 ] || { echo "usage: xvfb.sh COMMAND ARGS..." >&2; exit 64; }
rc_file="$(mktemp /tmp/poslab-xvfb-rc.XXXXXX)" || exit 70
trap 'rm -f "$rc_file"' EXIT
for attempt in 1 2 3; do
  : >"$rc_file"
  # shellcheck disable=SC2016  # expanded by the inner shell
  xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '"$@"; echo $? >"$0"' "$rc_file" "$@"
  xvfb_rc=$?
  if [ -s "$rc_file" ]; then exit "$(cat "$rc_file")"; fi
  echo "xvfb.sh: attempt $attempt: the command did not run under xvfb-run (exit $xvfb_rc)" >&2
done
exit "$xvfb_rc"
