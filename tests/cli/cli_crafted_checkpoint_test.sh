#!/usr/bin/env bash
# Issue 36, checkpoints crafted from the shipped models (tests/cli/craft_checkpoint.py):
# - `lm info` and `wm info` are linear in the number of metadata keys: 200,000 extra keys
#   (a 2.7 MB header) are printed whole. They took 28 CPU-s before (quadratic). No time is
#   asserted: ctest's timeout is the ceiling; docs/reliability.md has the measured times.
# - a text path recorded in a checkpoint, holding terminal control sequences, never reaches
#   the terminal raw: every line poslab-cli prints has them escaped (\x1b).
#   cli_crafted_checkpoint_test.sh POSLAB_CLI SOURCE_DIR
set -u
cli="$1" src="$2"
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
craft() { python3 "$src/tests/cli/craft_checkpoint.py" "$@" || { echo "FAIL: craft $*"; exit 1; }; }
for kind in lm wm; do
  case $kind in
    lm) model="$src/assets/models/lm_alibi.safetensors" ;;
    wm) model="$src/assets/models/wm_tiny_rope.safetensors" ;;
  esac
  craft "$model" "$dir/$kind.safetensors" keys 200000
  if ! "$cli" "$kind" info "$dir/$kind.safetensors" > "$dir/$kind.json"; then
    echo "FAIL: $kind info of a checkpoint with 200,000 metadata keys exited non-zero"; fail=1
    continue
  fi
  python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['metadata']; \
sys.exit(0 if m['k0000000']=='v' and m['k0199999']=='v' and len(m)>=200000 else 1)" "$dir/$kind.json" ||
    { echo "FAIL: $kind info does not list the 200,000 keys"; fail=1; }
done

# ESC [31m (red), OSC 0 (window title) ended by BEL, a newline and a C1 CSI (U+009B).
hostile=$(printf '%s/no-such-\033[31mred\033]0;title\007-\n-\302\233-x.txt' "$dir")
craft "$src/assets/models/lm_alibi.safetensors" "$dir/path.safetensors" data-path "$hostile"
for args in "lm eval $dir/path.safetensors --positions 64 --windows 1" "lm info $dir/path.safetensors"; do
  # shellcheck disable=SC2086  # the words of the command
  "$cli" $args > "$dir/out" 2> "$dir/err"
  # Control bytes other than the line ends, or a C1 control in UTF-8, anywhere in the output.
  if LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$dir/out" "$dir/err"; then
    echo "FAIL: '$args' printed a recorded path's control characters raw:"; cat -v "$dir/err"; fail=1
  fi
  [ "$(wc -l < "$dir/err")" -le 1 ] || { echo "FAIL: '$args' wrote more than one error line"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: 200,000 metadata keys printed; recorded control characters escaped"
exit $fail
