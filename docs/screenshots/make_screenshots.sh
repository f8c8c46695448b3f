#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png with the headless capture mode (mouse parked, so no
# tooltip or hover state depends on where the virtual display's cursor happens to be).
# Usage: docs/screenshots/make_screenshots.sh [build/release/app/poslab]
set -eu
app="${1:-build/release/app/poslab}"
out="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never the user's settings
shot() {  # name frames preset [extra args]
  local name="$1" frames="$2" preset="$3"; shift 3
  xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --preset "$preset" --frames "$frames" \
    --screenshot "$out/$name.png" "$@" 2>/dev/null
  echo "$name.png  <- $preset $*"
}
shot welcome 5 welcome
shot wheels 10 'rope?dim=512&scaling=yarn&factor=8'
shot attention_orderings 10 'attention?enc=sin&compare=orderings'
shot kv_sliding 10 'kv'
shot kv_stitch 10 'kv?pos=rope&scenario=stitch'
shot arena 150 'arena?ship=2&play=1'
shot arena_light 150 'arena?ship=2&helm=1&play=1' --theme light
shot lesson_zh 10 'lessons?lesson=03-rope&lang=zh'
# "Train your own" while a run trains (train=2 starts it from this command line; the
# frames pace how far it gets, and quitting cancels it).
shot length_training 400 'length?train=2'
