#!/usr/bin/env bash
# A resumable fuzzing campaign over every harness in fuzz/, and its accumulated totals.
#   scripts/fuzz_campaign.sh totals                 executions, runs, crashes per harness so far
#   scripts/fuzz_campaign.sh contained CLI          every input that crashed libhdf5 in the dataset
#                                                   harness, read by poslab-cli inspect (its
#                                                   helper process): a count per outcome; exit 1
#                                                   if any ended otherwise than exit 2 with one
#                                                   line naming the file or a clean read
#   scripts/fuzz_campaign.sh run SECONDS [TARGET]   rounds of SECONDS per harness until each
#                                                   has TARGET executions (default 10000000):
#                                                   a harness never run first, then the one
#                                                   with the least time left to its target
#                                                   at its measured rate
# Least time left first: fast harnesses reach the target one after another and the slow
# ones (dataset in fork mode, about 900 executions per CPU-second since stop 15, against
# thousands for the text parsers) come last. Fewest executions first, as
# before, gave nearly every round to the slowest harness once each had run, so no harness
# ever finished.
# Each run is scripts/fuzz.sh NAME SECONDS: the corpus grows in build/fuzz/corpus/NAME and each
# finished run appends a line to build/fuzz/stats/NAME.txt, so stopping the campaign (Ctrl+C,
# a reboot) loses at most the run in progress, and starting it again goes on from the totals.
# Harnesses run at nice 19. POSLAB_FUZZ_PRESET / POSLAB_FUZZ_NO_BUILD pass through to fuzz.sh.
# Exit 1 as soon as a run finds a crash in PosLab's code (fuzz.sh's exit status).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
stats=build/fuzz/stats

# total_execs NAME -> the sum of the first field of NAME's stats lines (0 if none).
total_execs() { awk '{s += $1} END {print s + 0}' "$stats/$1.txt" 2>/dev/null || echo 0; }

# time_left NAME TARGET -> seconds NAME needs to reach TARGET at its measured executions/s
# (0 if it never ran a timed round: it runs first, which measures it).
time_left() {
  awk -v target="$2" '{e += $1; if (NF >= 4) {s += $4; es += $1}}
    END {printf "%d\n", (es > 0 && s > 0) ? (target - e) / (es / s) : 0}' "$stats/$1.txt" \
    2>/dev/null || echo 0
}

totals() {
  printf '%-13s %14s %5s %8s %8s %10s %8s\n' harness executions runs seconds crashes in_libhdf5 execs/s
  local name
  for name in $(scripts/fuzz.sh list); do
    if [[ -f "$stats/$name.txt" ]]; then
      # execs/s over the runs that recorded their length (field 4).
      awk -v n="$name" '{e += $1; r += 1; c += $2; l += $3; if (NF >= 4) {s += $4; es += $1}}
        END {printf "%-13s %14d %5d %8d %8d %10d %8s\n", n, e, r, s, c, l,
                    (s > 0 ? sprintf("%d", es / s) : "-")}' "$stats/$name.txt"
    else
      printf '%-13s %14d %5d %8d %8d %10d %8s\n' "$name" 0 0 0 0 0 -
    fi
  done
}

# contained CLI: what PosLab's own reader (helper process, memory limit, timeout) makes of
# each input that crashed libhdf5 inside the harness (which reads in its own process).
contained() {
  local cli="$1" f err rc ok=0 read=0 bad=0
  declare -A kinds=()
  shopt -s nullglob
  for f in build/fuzz/artifacts/dataset/{crash,oom,timeout,leak}-*; do
    [[ "$f" == *.sorted ]] && continue
    err=$("$cli" inspect "$f" 2>&1 >/dev/null) && rc=0 || rc=$?
    if [[ $rc -eq 2 && "$err" == error:*"$f"* && $(wc -l <<<"$err") -eq 1 ]]; then
      ok=$((ok + 1))
      # The reason, without the file name and the advice: "HDF5 cannot open it", ...
      err=${err#*"$f": }
      err=${err%%;*}
      err=${err%% (*}
      kinds[$err]=$((${kinds[$err]:-0} + 1))
    elif [[ $rc -eq 0 && -z "$err" ]]; then
      # Read without an error: the library's out-of-bounds read that ASan saw in the harness
      # landed in mapped memory here (no sanitizer in poslab-cli), and what came back passed
      # PosLab's own checks (shapes, counts, action ranges).
      read=$((read + 1))
    else
      bad=$((bad + 1))
      echo "NOT CONTAINED: $f: exit $rc: ${err:0:300}"
    fi
  done
  for err in "${!kinds[@]}"; do printf '%6d  %s\n' "${kinds[$err]}" "$err"; done | sort -rn
  echo "contained: $((ok + read + bad)) inputs: $ok exit 2 with one line naming the file," \
       "$read read without an error, $bad otherwise (a crash or hang of poslab-cli itself)"
  ((bad == 0))
}

case "${1:-}" in
  totals)
    totals
    ;;
  contained)
    [[ -x "${2:-}" ]] || { echo "usage: scripts/fuzz_campaign.sh contained POSLAB_CLI" >&2; exit 2; }
    contained "$2"
    ;;
  run)
    seconds="${2:-}" target="${3:-10000000}"
    if [[ ! "$seconds" =~ ^[1-9][0-9]*$ || ! "$target" =~ ^[0-9]+$ ]]; then
      echo "usage: scripts/fuzz_campaign.sh run SECONDS [TARGET_EXECUTIONS]" >&2
      exit 2
    fi
    while true; do
      # The harness with the least time left to the target goes next.
      next="" least="" best=""
      for name in $(scripts/fuzz.sh list); do
        t=$(total_execs "$name")
        ((t < target)) || continue
        left=$(time_left "$name" "$target")
        if [[ -z "$best" || $left -lt $best ]]; then next=$name least=$t best=$left; fi
      done
      [[ -z "$next" ]] && break
      echo "== $next: $least of $target executions so far"
      nice -n 19 scripts/fuzz.sh "$next" "$seconds"
      if (($(total_execs "$next") == least)); then
        echo "fuzz_campaign: $next ran no input in $seconds s; see build/fuzz/last_$next.log" >&2
        exit 1
      fi
    done
    echo "== every harness has $target executions"
    totals
    ;;
  *)
    echo "usage: scripts/fuzz_campaign.sh totals | run SECONDS [TARGET_EXECUTIONS] | contained CLI" >&2
    exit 2
    ;;
esac
