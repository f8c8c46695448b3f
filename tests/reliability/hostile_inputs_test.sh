#!/usr/bin/env bash
# Hostile input to every poslab-cli path that reads JSON, numbers, text or files: each gets
# exit code 2 and one line naming the value or file (never a crash, a hang or a wrap).
#   hostile_inputs_test.sh CLI MAKE_BAD_DATASET MAKE_HOSTILE_CHECKPOINT
set -u
cli="$1"
make_bad="$2"
make_ck="$3"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/../cli/cli_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_exit2_in <stdin file> <text> <args...>
expect_exit2_in() {
  local input="$1" want="$2"; shift 2
  local err rc
  err=$(timeout 60 "$cli" "$@" 2>&1 >/dev/null <"$input"); rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" <<<"$err" || [ "$(wc -l <<<"$err")" -ne 1 ]; then
    echo "FAIL: '$*' < $(basename "$input") gave exit $rc, error: ${err:0:300} (wanted exit 2 and one line with '$want')"; fail=1
  fi
}

# --- JSON on stdin and in action files (issue 10, class 5) ---
python3 -c "print('[' * 100000 + ']' * 100000)" > "$tmp/deep.json"
expect_exit2_in "$tmp/deep.json" "nested deeper" rope --dim 4 --positions 7 --apply
expect_exit2 "nested deeper" sim --actions "$tmp/deep.json"
python3 -c "print('{\"actions\": ' + '[' * 100000 + ']' * 100000 + '}')" > "$tmp/deep_obj.json"
expect_exit2 "nested deeper" sim --actions "$tmp/deep_obj.json"
echo '[1e400, 0, 0, 1]' > "$tmp/big.json"
expect_exit2_in "$tmp/big.json" "outside the range of a double" rope --dim 4 --positions 7 --apply
python3 -c "print('[' + '9' * 333 + ', 0, 0, 1]')" > "$tmp/digits.json"
expect_exit2_in "$tmp/digits.json" "outside the range of a double" rope --dim 4 --positions 7 --apply
python3 -c "print([[[0, 0, 0]] * 8] * 2)" > "$tmp/ok_actions.json"
"$cli" sim --steps 2 --actions "$tmp/ok_actions.json" > /dev/null || { echo "FAIL: a valid action file was refused"; fail=1; }
python3 -c "print([[[4294967297, 0, 0]] + [[0, 0, 0]] * 7])" > "$tmp/wrap.json"
expect_exit2 "[4294967297,0,0] is not [power" sim --actions "$tmp/wrap.json"
python3 -c "print([[[-1, 0, 0]] + [[0, 0, 0]] * 7])" > "$tmp/neg.json"
expect_exit2 "is not [power" sim --actions "$tmp/neg.json"
python3 -c "print(str([[[7, 0, 0]] + [[0, 0, 0]] * 7]).replace('7', '1e400', 1))" > "$tmp/huge_action.json"
expect_exit2 "outside the range of a double" sim --actions "$tmp/huge_action.json"
mkfifo "$tmp/fifo.json"
expect_exit2 "not a regular file" sim --actions "$tmp/fifo.json"
expect_exit2 "not a regular file" sim --actions "$tmp"

# --- integers that would wrap (class 7) ---
expect_exit2 "--seed = \"-1\"" sim --seed -1
expect_exit2 "--seed = 18446744073709551616: out of range" sim --seed 18446744073709551616
expect_exit2 "--seed = \"1e3\"" sim --seed 1e3
"$cli" sim --seed 18446744073709551615 --steps 3 > /dev/null || { echo "FAIL: seed 2^64-1 refused"; fail=1; }
expect_exit2 "would pass 18446744073709551615" collect --episodes 2 --seed 18446744073709551615 -o "$tmp/x.h5"
expect_exit2 "--seed = \"-1\"" attention --seed -1
expect_exit2 "--seed = 18446744073709551616: out of range" kv --seed 18446744073709551616
expect_exit2 "--seed" attention --seed=-1

# --- strict UTF-8 in the attention tokenizer (class 5) ---
for bad in '\xc0\xaf' '\xe0\x80\xaf' '\xed\xa0\x80' '\xf4\x90\x80\x80' '\xf8\x88\x80\x80\x80' 'ab\xe4\xb8'; do
  expect_exit2 "invalid UTF-8" attention --sentence "$(printf "a $bad b")"
done
"$cli" attention --sentence "$(printf 'a \xf4\x8f\xbf\xbf b')" > /dev/null || { echo "FAIL: U+10FFFF refused"; fail=1; }

# --- datasets (classes 3 and 4) ---
for kind in huge external-link external-storage; do
  "$make_bad" "$kind" "$tmp/bad_$kind.h5" || { echo "FAIL: make_bad_dataset $kind"; fail=1; }
done
expect_exit2 "stores only" inspect "$tmp/bad_huge.h5"
expect_exit2 "external link" inspect "$tmp/bad_external-link.h5"
expect_exit2 "external files" inspect "$tmp/bad_external-storage.h5"
mkfifo "$tmp/fifo.h5"
expect_exit2 "not a regular file" inspect "$tmp/fifo.h5"
# A mutant of a valid dataset that makes libhdf5 allocate without end (found by fuzz_dataset,
# stop 15): the reader process is stopped at its memory limit, in seconds, not after the
# machine's whole memory.
expect_exit2 "MB of memory" inspect "$(dirname "${BASH_SOURCE[0]}")/data/runaway_allocation.h5"

# --- full disk (class 2): a file size limit makes every write past it fail ---
"$cli" collect --episodes 3 --teams 2v2 --quiet -o "$tmp/prev.h5" > /dev/null
prev=$(sha256sum < "$tmp/prev.h5")
err=$(bash -c 'trap "" XFSZ; ulimit -f 200; exec "$@"' _ "$cli" collect --episodes 200 --threads 2 \
      --quiet --force -o "$tmp/prev.h5" 2>&1 >/dev/null); rc=$?
if [ "$rc" -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ]; then
  echo "FAIL: collect on a full disk exited $rc (wanted 2 and one line): ${err:0:300}"; fail=1
fi
[ "$(sha256sum < "$tmp/prev.h5")" = "$prev" ] || { echo "FAIL: a failed --force run changed the previous file"; fail=1; }
if ls "$tmp"/prev.h5.work* "$tmp"/prev.h5.tmp.* > /dev/null 2>&1; then
  echo "FAIL: the failed run left its work file"; fail=1
fi
if [ -e "$tmp/prev.h5.partial" ]; then
  "$cli" inspect "$tmp/prev.h5.partial" > /dev/null || { echo "FAIL: the snapshot of a failed run does not open"; fail=1; }
fi

# --- issue 29: checkpoints, CLI limits and outputs that a link or a file could abuse ---
# expect_short_exit2 <text> <args...>: exit 2 and one line of at most 400 characters (a
# hostile file is never echoed into its error).
expect_short_exit2() {
  local want="$1"; shift
  local err rc
  err=$(timeout 60 "$cli" "$@" 2>&1 >/dev/null </dev/null); rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" <<<"$err" || [ "$(wc -l <<<"$err")" -ne 1 ] || [ "${#err}" -gt 400 ]; then
    echo "FAIL: '${*:0:200}' gave exit $rc, ${#err}-byte error: ${err:0:300} (wanted exit 2 and one short line with '$want')"; fail=1
  fi
}
"$cli" collect --episodes 12 --seed 300 --max-steps 80 --threads 1 --quiet -o "$tmp/d.h5" > /dev/null ||
  { echo "FAIL: collect"; exit 1; }
mk() { "$make_ck" "$@" || { echo "FAIL: make_hostile_checkpoint $*"; fail=1; }; }
resume() {  # wm train --resume on a copy of checkpoint $1 (the output is the checkpoint)
  cp "$1" "$tmp/resume.safetensors"
  expect_short_exit2 "$2" wm train --resume --steps 6 --threads 1 --quiet --data "$tmp/d.h5" -o "$tmp/resume.safetensors"
}
# S1: a shape nested 100,000 and 60,000 arrays deep (SIGSEGV, or a 120 KB error line, before).
for depth in 100000 60000; do
  mk deep-shape "$tmp/deep$depth.safetensors" "$depth"
  expect_short_exit2 "nested deeper than 8 levels" wm info "$tmp/deep$depth.safetensors"
  expect_short_exit2 "nested deeper than 8 levels" wm eval "$tmp/deep$depth.safetensors" --data "$tmp/d.h5"
  resume "$tmp/deep$depth.safetensors" "nested deeper than 8 levels"
done
# M3: the same in __metadata__, and in the config text a valid model carries.
mk deep-meta "$tmp/deep_meta.safetensors" 100000
expect_short_exit2 "nested deeper than 8 levels" wm info "$tmp/deep_meta.safetensors"
mk deep-config "$tmp/deep_config.safetensors" 100000
expect_short_exit2 "config is nested deeper than 8" wm info "$tmp/deep_config.safetensors"
expect_short_exit2 "config is nested deeper than 8" wm eval "$tmp/deep_config.safetensors" --data "$tmp/d.h5"
resume "$tmp/deep_config.safetensors" "config is nested deeper than 8"
# M3: wrong types and values in the metadata, each named (was: wrapped, converted or UB).
mk valid "$tmp/ok.safetensors" "$tmp/d.h5"
"$cli" wm info "$tmp/ok.safetensors" > /dev/null || { echo "FAIL: the generator's valid checkpoint is refused"; fail=1; }
deep_data=$(python3 -c "print('{\"files\": ' + '[' * 60000 + ']' * 60000 + '}')")
data() { echo "{\"files\": [{\"path\": \"$tmp/d.h5\"}], $1}"; }
mk valid "$tmp/step.safetensors" "$tmp/d.h5" "step= 5"
expect_short_exit2 "metadata 'step' = ' 5' is not a whole number" wm info "$tmp/step.safetensors"
mk valid "$tmp/seed.safetensors" "$tmp/d.h5" "data=$(data '"seed": -1')"
expect_short_exit2 "recorded seed = -1 is not" wm eval "$tmp/seed.safetensors"
resume "$tmp/seed.safetensors" "recorded seed = -1 is not"
mk valid "$tmp/valf.safetensors" "$tmp/d.h5" "data=$(data '"val_fraction": 2')"
expect_short_exit2 "recorded val_fraction = 2 is not a number in [0" wm eval "$tmp/valf.safetensors"
mk valid "$tmp/batch.safetensors" "$tmp/d.h5" 'training={"batch": 1e10}'
resume "$tmp/batch.safetensors" "recorded batch = 10000000000.0 is not a whole number in [1, 4096]"
mk valid "$tmp/deepdata.safetensors" "$tmp/d.h5" "data=$deep_data"
expect_short_exit2 "metadata 'data' is not a JSON object of at most 8 levels" wm eval "$tmp/deepdata.safetensors"
# wm info shows such a value as its text (nothing recursive sees the nesting).
timeout 60 "$cli" wm info "$tmp/deepdata.safetensors" > /dev/null 2>&1 || { echo "FAIL: wm info of a deep 'data' text"; fail=1; }
# S2: 1.7 KB claiming E 1024, 64 heads, 64 layers, context 4096 (12.5 GB and 70 s before):
# refused from the header, under a 1 GB address-space limit that the old loader passed.
# (Under AddressSanitizer, whose shadow memory needs terabytes of address space, the limit
# is left out: the sanitizer tree runs these scripts in CI.)
vlimit=1000000
grep -qa __asan_init "$cli" && vlimit=unlimited
for extra in "" optim; do
  mk huge-config "$tmp/huge$extra.safetensors" $extra
  err=$(bash -c 'ulimit -v "$0"; exec "$@"' "$vlimit" "$cli" wm info "$tmp/huge$extra.safetensors" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF "beyond this build's budget" <<<"$err"; then
    echo "FAIL: huge-config $extra: exit $rc, ${err:0:300}"; fail=1
  fi
done
expect_short_exit2 "beyond this build's budget" wm eval "$tmp/huge.safetensors" --data "$tmp/d.h5"
# Low: weights of 3e38 or NaN are named at load (they dreamt nulls).
for v in 3e38 nan -inf; do
  mk weight "$tmp/w$v.safetensors" "$tmp/d.h5" "$v"
  expect_short_exit2 "tensor 'state_enc.in.weight' holds" wm info "$tmp/w$v.safetensors"
  expect_short_exit2 "tensor 'state_enc.in.weight' holds" wm dream "$tmp/w$v.safetensors" --sim-seed 1 --steps 2
done
# M5: thread counts.
for n in -1 100000; do
  expect_exit2 "--threads = $n: must be in [0," wm train --data "$tmp/d.h5" --steps 2 --threads "$n" -o "$tmp/t.safetensors"
  expect_exit2 "--threads = $n: must be in [0," collect --episodes 2 --threads "$n" -o "$tmp/t.h5"
  expect_exit2 "--threads = $n: must be in [0," wm eval "$tmp/ok.safetensors" --threads "$n"
done
# Low: output folders checked before training starts; counts checked before use.
expect_exit2 "does not exist (create it first)" wm train --data "$tmp/d.h5" --steps 2 -o "$tmp/no/such/dir/m.safetensors"
expect_exit2 "does not exist (create it first)" wm train --data "$tmp/d.h5" --steps 2 -o "$tmp/m.safetensors" --log "$tmp/no/log.csv"
expect_exit2 "--stride = 0: must be in [1," wm eval "$tmp/ok.safetensors" --stride 0
expect_exit2 "--long-dreams = -1: must be in [0," wm eval "$tmp/ok.safetensors" --long-dreams -1
expect_exit2 "is not POWER.TURN.SHOOT" wm dream --preset 'dreams?helm=0' --helm-actions 4294967297.0.0
expect_exit2 "more than 100000 steps in all" wm dream --preset 'dreams?helm=0' --helm-actions "2.6.1*100000,2.6.1*100000"
windows=(); for i in $(seq 200); do windows+=(--window 0:0:4); done
expect_exit2 "at most 64 windows" wm forward "$tmp/ok.safetensors" --data "$tmp/d.h5" "${windows[@]}"
# Window specs read with from_chars: a value past long long, a sign trick, trailing text.
expect_exit2 "use EPISODE:START:LENGTH" wm forward "$tmp/ok.safetensors" --data "$tmp/d.h5" --window 99999999999999999999:0:4
expect_exit2 "use EPISODE:START:LENGTH" wm forward "$tmp/ok.safetensors" --data "$tmp/d.h5" --window 0:0:4x
expect_exit2 "rows out of range" wm forward "$tmp/ok.safetensors" --data "$tmp/d.h5" --window 0:9223372036854775807:2
# Low: NaN and huge token values are errors naming the file and the value, in inspect as in
# wm train (inspect printed null with exit 0; train said "lower --lr").
"$make_bad" nan-token "$tmp/nan.h5" && "$make_bad" huge-token "$tmp/hugetok.h5" || { echo "FAIL: make_bad_dataset tokens"; fail=1; }
expect_exit2 "vx/180 = nan" inspect "$tmp/nan.h5"
expect_exit2 "vx/180 = nan" inspect "$tmp/nan.h5" --episode 3
expect_exit2 "hugetok.h5: episode 3, row 2, slot 0, vx/180 = 1e+30" wm train --data "$tmp/hugetok.h5" --steps 2 --threads 1 --quiet -o "$tmp/h.safetensors"
expect_exit2 "vx/180 = 1e+30" inspect "$tmp/hugetok.h5"
# M1: outputs never replace a device or FIFO, keep the old file's mode, write through our
# symbolic link, and never follow another user's.
mkfifo "$tmp/out.fifo"
expect_exit2 "is a FIFO (named pipe); refusing to replace it" wm export "$tmp/ok.safetensors" -o "$tmp/out.fifo"
[ -p "$tmp/out.fifo" ] || { echo "FAIL: export replaced a FIFO"; fail=1; }
expect_exit2 "is a FIFO (named pipe); refusing to replace it" collect --episodes 2 --force --quiet -o "$tmp/out.fifo"
expect_exit2 "is a character device; refusing to replace it" wm export "$tmp/ok.safetensors" -o /dev/null
"$cli" wm export "$tmp/ok.safetensors" -o "$tmp/mode.safetensors" > /dev/null
chmod 640 "$tmp/mode.safetensors"
"$cli" wm export "$tmp/ok.safetensors" -o "$tmp/mode.safetensors" > /dev/null
[ "$(stat -c %a "$tmp/mode.safetensors")" = 640 ] || { echo "FAIL: export changed the file's mode to $(stat -c %a "$tmp/mode.safetensors")"; fail=1; }
ln -s mode.safetensors "$tmp/link.safetensors"
"$cli" wm export "$tmp/ok.safetensors" -o "$tmp/link.safetensors" > /dev/null || { echo "FAIL: export through our link"; fail=1; }
[ -L "$tmp/link.safetensors" ] || { echo "FAIL: export replaced the symbolic link"; fail=1; }
if [ "$(id -u)" = 0 ]; then
  # As root in a world-writable folder: a device node is not replaced, another user's link
  # is not followed, and the old fixed collect work name planted as a link changes nothing.
  shared="$tmp/shared"; mkdir -m 1777 "$shared"
  mknod "$shared/full" c 1 7
  expect_exit2 "is a character device; refusing to replace it" wm export "$tmp/ok.safetensors" -o "$shared/full"
  [ -c "$shared/full" ] || { echo "FAIL: export replaced a device node"; fail=1; }
  echo secret > "$tmp/victim"; chmod 600 "$tmp/victim"; victim=$(sha256sum < "$tmp/victim")
  ln -s "$tmp/victim" "$shared/theirs.safetensors"; chown -h nobody "$shared/theirs.safetensors"
  expect_exit2 "symbolic link owned by another user" wm export "$tmp/ok.safetensors" -o "$shared/theirs.safetensors"
  ln -s "$tmp/victim" "$shared/data.h5.work"
  "$cli" collect --episodes 2 --quiet -o "$shared/data.h5" > /dev/null || { echo "FAIL: collect beside a planted link"; fail=1; }
  [ "$(sha256sum < "$tmp/victim")" = "$victim" ] || { echo "FAIL: a planted link's target was overwritten"; fail=1; }
fi
exit $fail
