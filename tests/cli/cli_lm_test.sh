#!/usr/bin/env bash
# poslab-cli lm: a tiny model trained on a small text prints JSON an independent reader
# accepts, resumes, exports, evaluates past its context under every RoPE scaling, and bad
# input exits 2 with one line.
set -u
cli="$1"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
text="$dir/text.txt"
for i in $(seq 1 60); do printf 'Fortune %d: the cat sat on the mat.\n%%\n' "$i"; done > "$text"
tiny=(--embed 16 --heads 2 --layers 1 --context 16 --batch 4 --valid-windows 4 --threads 1 --text "$text" --quiet)

check_json "j['step']==4 and not j['interrupted'] and j['valid_bpb']<9 and j['config']['param_count']>0 and j['data']['valid_entries']==6" \
  lm train --position rope --steps 4 --log-every 2 "${tiny[@]}" -o "$dir/r.safetensors"
[ "$(wc -l < "$dir/r.csv")" -eq 3 ] || { echo "FAIL: CSV should hold a header and 2 rows"; fail=1; }
check_json "j['first_step']==4 and j['step']==6" \
  lm train --position rope --steps 6 --log-every 2 "${tiny[@]}" --resume -o "$dir/r.safetensors"
[ "$(wc -l < "$dir/r.csv")" -eq 4 ] || { echo "FAIL: resumed CSV should hold 3 rows"; fail=1; }
check_json "j['config']['learned_past_L'].startswith('clamped to row L-1')" \
  lm train --position learned --steps 2 --log-every 2 "${tiny[@]}" -o "$dir/l.safetensors"
check_json "j['step']==2" lm export "$dir/l.safetensors" -o "$dir/l_export.safetensors"
check_json "not j['has_optimiser_state'] and j['metadata']['data']['files'][0]['path']=='$text'" \
  lm info "$dir/l_export.safetensors"
check_json "j['has_optimiser_state'] and j['scaling']['scaling']=='none'" lm info "$dir/r.safetensors"
for sc in none linear ntk dynamic yarn llama3; do
  check_json "len(j['bits_per_byte'])==64 and j['scaling']['label'].startswith('$sc') and '4L' in j['at'] and j['windows']>=1" \
    lm eval "$dir/r.safetensors" --text "$text" --positions 64 --windows 3 --scaling "$sc" --factor 4
done
# A checkpoint only says what it was trained on: a text outside PosLab's own files is given.
expect_exit2 "pass --text FILE" lm eval "$dir/r.safetensors"
check_json "len(j['bits'])==20 and len(j['top'][0])==3 and j['top'][0][0][1]>=j['top'][0][1][1]" \
  lm eval "$dir/r.safetensors" --text "$text" --positions 20 --per-byte --top 3
check_json "len(j['attention'])==2 and all(abs(sum(r)-1)<1e-4 for r in j['attention'][1]['probs'])" \
  lm attention "$dir/r.safetensors" --text "$text" --positions 24
# fine-tuning at 2L with PI records its scaling, which eval then uses by default
check_json "j['window']==32 and j['scaling']['scaling']=='linear'" \
  lm train --init-from "$dir/r.safetensors" --context 32 --scaling linear --factor 2 --steps 2 --log-every 2 \
  --batch 2 --valid-windows 2 --threads 1 --text "$text" --quiet -o "$dir/pi.safetensors"
check_json "j['scaling']['label']=='linear x2'" lm eval "$dir/pi.safetensors" --text "$text" --positions 40 --windows 2

expect_exit2 "position" lm train --position wrap --steps 1 "${tiny[@]}" -o "$dir/x.safetensors"
expect_exit2 "embed" lm train --embed 15 --steps 1 "${tiny[@]}" -o "$dir/x.safetensors"
expect_exit2 "--output" lm train --steps 1 --text "$text"
expect_exit2 "--resume" lm train --steps 1 "${tiny[@]}" --resume -o "$dir/missing.safetensors"
expect_exit2 "scaling" lm eval "$dir/r.safetensors" --scaling huge
expect_exit2 "--factor" lm eval "$dir/r.safetensors" --scaling yarn --factor 0.5
# --positions as a multiple of the model's L (16 here): 4L is 64 positions.
"$cli" lm eval "$dir/r.safetensors" --text "$text" --positions 4L --windows 2 > "$dir/e4L.json" 2>/dev/null &&
  "$cli" lm eval "$dir/r.safetensors" --text "$text" --positions 64 --windows 2 > "$dir/e64.json" 2>/dev/null &&
  cmp -s "$dir/e4L.json" "$dir/e64.json" || { echo "FAIL: --positions 4L is not --positions 64"; fail=1; }
expect_exit2 "multiple of the model's L" lm eval "$dir/r.safetensors" --text "$text" --positions 8X
expect_exit2 "multiple of the model's L" lm eval "$dir/r.safetensors" --text "$text" --positions 0
expect_exit2 "shorter than a window" lm eval "$dir/r.safetensors" --text "$text" --positions 4000 --windows 1
expect_exit2 "--memory-budget-mb" lm eval "$dir/r.safetensors" --text "$text" --positions 60000
expect_exit2 "layer" lm attention "$dir/r.safetensors" --text "$text" --layer 3
printf 'not a model' > "$dir/bad.safetensors"
expect_exit2 "bad.safetensors" lm info "$dir/bad.safetensors"
expect_exit2 "bad.safetensors" lm eval "$dir/bad.safetensors"
expect_exit2 "no.safetensors" lm info "$dir/no.safetensors"
exit $fail
