#!/usr/bin/env bash
# Frame times of every lab at 1600x1000 under xvfb-run with Mesa's software renderer
# (docs/performance.md). Usage: scripts/frame_times.sh <poslab> [frames]
# Prints one line per case: the case, then poslab's --frame-times JSON (CPU time of a
# frame's UI + render calls; the first 2 frames are skipped). Reports, never gates.
# Headless, a playing dream lab advances one model step per frame and waits for it (so
# checks are deterministic), about 4x the 25 steps/s a user sees: the "dreams" rows include
# that model time; "drawing only" finishes its dream in the first 24 frames. The "as a
# user sees it" rows pass --live-jobs: the dream steps at 25 per second of wall time on its
# worker and no frame waits for it, as in the interactive app.
set -uf  # -f: presets hold glob characters (?)
app="$1"; frames="${2:-300}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" LIBGL_ALWAYS_SOFTWARE=1
cases=(
  "welcome|--panel welcome"
  "rope wheels (defaults)|--panel rope"
  "rope wheels, head dim 512, playing|--preset rope?dim=512&play=1"
  "attention (defaults)|--panel attention"
  "attention, 1024 tokens|--preset attention?source=count&tokens=1024&heads=8&head_dim=64&dim=512"
  "kv cache|--panel kv"
  "arena|--panel arena"
  "lessons|--panel lessons"
  "dreams|--panel dreams"
  "dreams, dream done after 24 steps (drawing only)|--preset dreams?horizon=24"
  "dreams, 4v4 dreaming with the attention view|--preset dreams?team0=4&team1=4&attn=1&strip=1&horizon=1536&from=8"
  "dreams as a user sees it (25 steps/s, not waited for)|--panel dreams --live-jobs"
  "dreams 4v4 with the attention view, as a user sees it|--preset dreams?team0=4&team1=4&attn=1&strip=1&horizon=1536&from=8 --live-jobs"
)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in "${cases[@]}"; do
  name="${c%%|*}"; args="${c#*|}"
  # shellcheck disable=SC2086
  out=$(xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --width 1600 --height 1000 $args \
        --frames "$frames" --frame-times 2>/dev/null | grep '^{')
  echo "$name | $out"
done
