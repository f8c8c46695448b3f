#!/usr/bin/env bash
# poslab-cli kv: valid calls print JSON that an independent reader (python3's json)
# accepts and whose numbers hold the lab's invariants; invalid input exits 2 with one line.
set -u
cli="$1"
fail=0

expect_exit2() {  # expect_exit2 <text the error must contain> <args...>
  local want="$1"; shift
  local err rc
  err=$("$cli" "$@" 2>&1 >/dev/null </dev/null); rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" <<<"$err" || [ "$(wc -l <<<"$err")" -ne 1 ]; then
    echo "FAIL: '$*' gave exit $rc, error: $err (wanted exit 2 and one line with '$want')"; fail=1
  fi
}

check_json() {  # check_json <python expression on j, with m(name) = that method> <args...>
  local expr="$1"; shift
  local out
  out=$("$cli" "$@" </dev/null) || { echo "FAIL: '$*' exited non-zero"; fail=1; return; }
  if ! python3 -c "
import json,sys,math
j=json.load(sys.stdin)
def m(name): return next(x for x in j['methods'] if x['method']==name)
sys.exit(0 if ($expr) else 1)" <<<"$out"; then
    echo "FAIL: '$*': $expr does not hold"; fail=1
  fi
}

# The seed's example: after one slide the naive cache holds indices 2..9, 8, 9.
check_json "m('naive')['final_cache']['encoded_at']==[2,3,4,5,6,7,8,9,8,9] and m('legacy')['final_cache']['encoded_at']==list(range(10))" \
  kv --steps 1
# Per-step, per-layer errors; exact recomputation stays at rounding level, naive does not.
check_json "len(m('recompute')['steps'])==5 and len(m('naive')['steps'][0]['output_error'])==3 and max(m('recompute')['max_output_error'])<1e-5 and min(m('naive')['max_output_error'])>1e-2" \
  kv --scenario sliding --layers 3 --steps 5
check_json "[x['method'] for x in j['methods']]==['naive','keep','kshift','recompute'] and m('kshift')['max_output_error'][0]<1e-5" \
  kv --positions rope --layers 1 --steps 4
check_json "len(j['methods'])==1 and j['methods'][0]['method']=='kshift'" kv --positions rope --method kshift --steps 2
# Stitching: positions fixed to rounding level, output still differs from the scratch text.
check_json "max(m('reencode')['key_position_error'])<1e-5 and m('naive')['key_position_error'][0]>0.1 and m('reencode')['final_output_error'][-1]>1e-3 and j['stitched_length']==20" \
  kv --positions rope --scenario stitch --steps 3
check_json "j['first_original_positions']==[180,181,182,183] and abs(m('reencode_scaled')['key_position_error'][0]-(j['rope']['table_scale_squared']-1))<1e-5" \
  kv --positions rope --scenario rag --scaling yarn --factor 16 --first 200 --from 180 --steps 1
check_json "j['scenario']=='rag' and j['methods'][0]['method']=='kshift'" \
  kv --preset 'kv?pos=rope&scenario=rag&method=kshift' --steps 1
# What follows from a choice is filled in, as in the panel: stitching runs on RoPE, a preset
# naming no method gets the scenario's first one, an unnamed retrieval count fits inside B.
check_json "j['scenario']=='stitch' and 'rope' in j" kv --scenario stitch --steps 1
check_json "[x['method'] for x in j['methods']]==['naive']" \
  kv --preset 'kv?pos=rope&scenario=stitch' --steps 1
check_json "j['first_original_positions']==[11]" kv --positions rope --scenario rag --from 11 --steps 1

expect_exit2 "scenario" kv --scenario spiral
expect_exit2 "method" kv --method magic
expect_exit2 "choose one of naive, legacy, recompute" kv --method kshift
expect_exit2 "positions = rope" kv --positions learned --scenario stitch
expect_exit2 "layers" kv --layers 7
expect_exit2 "context = 9" kv --context 9
expect_exit2 "--steps" kv --steps many
expect_exit2 "B has only 12" kv --positions rope --scenario rag --from 11 --retrieved 4
expect_exit2 "--layer-norm" kv --layer-norm maybe
expect_exit2 "unknown key \"colour\"" kv --preset 'kv?colour=red'
# The trained source (issue 39): a shipped language model's own cache (assets/models).
T='kv?weights=trained'
check_json "[x['method'] for x in j['methods']]==['recompute','naive','reencode'] and j['methods'][0]['reference'] and m('reencode')['key_diff'][0]<1e-5 and m('naive')['key_diff'][0]>1e-2 and m('reencode')['key_diff'][1]>1e-3 and len(m('naive')['bits'])==32 and j['stitched']==96" \
  kv --preset "$T&model=rope&scenario=stitch"
check_json "[x['method'] for x in j['methods']]==['recompute','naive'] and 'does not apply' in j['note']" \
  kv --preset "$T&model=learned"
check_json "j['first_block_positions']==[0,4,8,12] and j['stitched']==36" \
  kv --preset "$T&model=alibi&scenario=rag&retrieved=4"
check_json "all(x['bits']==j['methods'][0]['bits'] for x in j['methods'])" \
  kv --preset "$T&model=rope&b=0"
check_json "[x['method'] for x in j['methods']]==['full','naive','reencode','naive_sinks','reencode_sinks'] and len(m('full')['bits'])==256 and all(abs(a-b)<1e-3 for x in j['methods'] for a,b in zip(x['bits'],m('full')['bits']))" \
  kv --preset "$T&model=rope&scenario=stream&span=2&window=256"
expect_exit2 "RAG set is empty" kv --preset "$T&scenario=rag&retrieved=0"
expect_exit2 "window = 0" kv --preset "$T&scenario=stream&window=0"
expect_exit2 "past 8L = 1024" kv --preset "$T&scenario=stream&window=1025"
expect_exit2 "passage A" kv --preset "$T&a=1000"
expect_exit2 "only --preset" kv --preset "$T" --layers 2
POSLAB_MODELS_DIR=/nonexistent expect_exit2 "lm_rope.safetensors" kv --preset "$T"
exit $fail
