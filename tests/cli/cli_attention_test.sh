#!/usr/bin/env bash
# poslab-cli attention: valid calls print JSON that an independent reader (python3's json)
# accepts and whose numbers obey the invariants (rows sum to 1, causal zeros, shift and
# permutation behaviour, hand-computed ALiBi slopes and T5 ranges); invalid input exits 2
# with a one-line error naming the value.
set -u
cli="$1"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"



rows_sum_1="all(abs(sum(r)-1)<1e-5 for h in j['per_head'] for r in h['weights'])"
check_json "j['tokens']==['the','cat','chased','a','small','dog','home'] and $rows_sum_1" attention
check_json "j['tokens']==['我','喜欢','你']" attention --sentence "我 喜欢 你"
check_json "j['tokens']==['我','喜','欢','你']" attention --sentence 我喜欢你
check_json "len(j['per_head'])==3 and len(j['per_head'][0]['logits'])==20 and $rows_sum_1" attention --tokens 20 --heads 3
check_json "all(w==0 for h in j['per_head'] for i,r in enumerate(h['weights']) for w in r[i+1:]) and \
all(x is None for h in j['per_head'] for i,r in enumerate(h['logits']) for x in r[i+1:])" attention --tokens 9 --causal
check_json "[round(math.log2(s),6) for s in j['alibi_slopes']]==[-2,-4,-6,-8,-1,-3]" attention --encoding alibi --heads 6
check_json "j['demo']['max_abs_score_diff']<1e-4" attention --encoding rope --tokens 16 --demo shift --shift 100
check_json "j['demo']['max_abs_score_diff']<1e-4" attention --encoding t5 --tokens 16 --demo shift --shift 7
check_json "j['demo']['max_abs_score_diff']>1e-2" attention --encoding sin --tokens 16 --demo shift --shift 100
check_json "j['demo']['max_abs_score_diff']<1e-5" attention --encoding none --demo permutation
check_json "j['compare']['max_abs_score_diff']<1e-5 and j['compare']['align']==[2,1,0]" \
  attention --encoding rope --no-position --compare orderings --sentence "我 喜欢 你" --sentence-b "你 喜欢 我"
check_json "j['demo']['max_abs_score_diff']>1e-2" attention --encoding rope --demo permutation --order 1,0,2 --sentence "我 喜欢 你"
check_json "[(r['lo'],r['hi']) for r in j['demo']['ranges']][17]==(-20,-19)" \
  attention --encoding t5 --t5-unidirectional --demo buckets --tokens 4
check_json "j['positions_without_embedding']==[4.0,5.0] and j['per_head'][0]['logits'][5][0] is None" \
  attention --encoding learned --table-length 4 --tokens 6
# Undefined keys are left out of the defined queries' softmax (rows 0..3 sum to 1 over 4 keys).
check_json "all(abs(sum(r[:4])-1)<1e-5 and r[4] is None for r in j['per_head'][0]['weights'][:4])" \
  attention --encoding learned --table-length 4 --tokens 6 --head 0
# One RoPE vocabulary: --base as in rope and kv; the old --rope-base and rope_base= still work.
check_json "'base=5e+05' in j['preset']" attention --base 500000
check_json "'base=5e+05' in j['preset']" attention --rope-base 500000
check_json "'base=5e+05' in j['preset']" attention --preset 'attention?rope_base=500000'
# The decay demo samples 512 distances, as the panel draws.
check_json "len(j['demo']['ones'])==512 and j['demo']['deltas'][-1]==64" attention --demo decay --preset 'attention?decay_max=64'
check_json "j['scale']==1 and 't5_buckets' in j" attention --encoding t5 --tokens 5
# Issue 24: RoPE's extrapolation prints the slowest pair's angle m*theta_min (theta_min =
# base^(-(D-2)/D), head dim 16, base 10000 written out here), above the trained range
# exactly from position L on.
check_json "(lambda d: d['pair']==7 and abs(d['inv_freq']-10000**(-14/16))<1e-15 and all(abs(a-m*d['inv_freq'])<1e-12 for m,a in enumerate(d['angle'])) and [m for m,a in enumerate(d['angle']) if a>d['trained_max']]==list(range(20,50)))(j['demo']['slowest_pair'])" \
  attention --preset 'attention?enc=rope&demo=extrapolation&extrapolate=50&L=20'
check_json "'slowest_pair' not in j['demo']" attention --preset 'attention?enc=alibi&demo=extrapolation'
# Issue 24: the ALiBi demo has one bias map per head over 32 tokens (-slope * |i - j|).
check_json "j['demo']['tokens']==32 and len(j['demo']['head_biases'])==6 and all(abs(b[i][k]+s*abs(i-k))<1e-9 for b,s in zip(j['demo']['head_biases'],j['demo']['slopes']) for i in range(32) for k in range(32))" \
  attention --preset 'attention?enc=alibi&heads=6&demo=slopes'
check_json "all(abs(t['cc']+t['cp']+t['pc']+t['pp']-l)<1e-4 for h in j['per_head'] for tr,lr in zip(h['terms'],h['logits']) for t,l in zip(tr,lr))" \
  attention --encoding sin --tokens 6 --terms
check_json "all(b<=0 for r in j['per_head'][0]['bias'] for b in r) and len(j['terrain_m'])==4" \
  attention --encoding elevation --grid 4x5
check_json "j['compare']['max_abs_score_diff']>0 and len(j['compare']['heads'])==1" \
  attention --tokens 8 --compare alibi --head 1
check_json "j['encoding']=='alibi' and j['heads']==6" attention --preset 'attention?enc=alibi&heads=6'

expect_exit2 'encoding = "fourier": expected one of' attention --encoding fourier
expect_exit2 "heads = 0" attention --heads 0
expect_exit2 "--tokens = 1e+06" attention --tokens 1e6
expect_exit2 "--tokens = 1e+06" attention --tokens 1000000
expect_exit2 "sentence has more than 1024 tokens" attention --sentence "$(yes a | head -n 1100 | tr '\n' ' ')"
expect_exit2 "head_dim = 5" attention --head-dim 5
expect_exit2 "--grid" attention --grid 8y8
expect_exit2 "sentence is empty" attention --sentence "   "
expect_exit2 "missing from the second" attention --compare orderings --sentence "我 喜欢 你" --sentence-b "你 喜欢 他"
expect_exit2 "not a permutation" attention --demo permutation --order 0,0,1 --sentence "我 喜欢 你"
expect_exit2 "attention.enc" attention --preset 'attention?enc=fourier'
# The trained source (issue 27): a shipped model's attention equals `lm attention`'s for the
# same bytes, layer and head (an independent command), rows sum to 1, causal; a missing model
# file is one line naming it; an unknown model name is the usual preset error.
models="$(dirname "${BASH_SOURCE[0]}")/../../assets/models"
if [ -f "$models/lm_rope.safetensors" ]; then
  tmp="$(mktemp -d)"
  printf 'The quick brown fox jumps over the lazy dog.' > "$tmp/t.txt"
  "$cli" lm attention "$models/lm_rope.safetensors" --text "$tmp/t.txt" --layer 1 --head 2 > "$tmp/lm.json"
  check_json "all(abs(a-b)<1e-6 for r1,r2 in zip(j['per_head'][0]['weights'], json.load(open('$tmp/lm.json'))['attention'][0]['probs']) for a,b in zip(r1,r2)) and \
all(abs(sum(r)-1)<1e-5 for r in j['per_head'][0]['weights']) and \
all(w==0 for i,r in enumerate(j['per_head'][0]['weights']) for w in r[i+1:]) and len(j['tokens'])==44" \
    attention --preset 'attention?weights=trained&model=rope&layer=1&head=2&scaling=none&text=The%20quick%20brown%20fox%20jumps%20over%20the%20lazy%20dog.'
  "$cli" lm attention "$models/lm_rope.safetensors" --text "$tmp/t.txt" --scaling yarn --factor 4 --head 0 --layer 0 > "$tmp/lmy.json"
  check_json "all(abs(a-b)<1e-6 for r1,r2 in zip(j['scaled']['weights'], json.load(open('$tmp/lmy.json'))['attention'][0]['probs']) for a,b in zip(r1,r2))" \
    attention --weights trained --model rope --scaling yarn --factor 4 --sentence 'The quick brown fox jumps over the lazy dog.'
  check_json "j['demo']['name']=='extrapolation' and len(j['per_head'][0]['weights'])==512 and j['context']==128" \
    attention --preset 'attention?weights=trained&model=learned&demo=extrapolation&extrapolate=512&mean_heads=1'
  check_json "len(j['demo']['heads'])==4 and len(j['demo']['bound'])==65 and j['demo']['windows']==8" \
    attention --preset 'attention?weights=trained&demo=decay&decay_max=64'
  rm -rf "$tmp"
fi
POSLAB_MODELS_DIR=/nonexistent expect_exit2 "lm_rope.safetensors: not found" attention --weights trained
expect_exit2 'model = "gpt2"' attention --preset 'attention?weights=trained&model=gpt2'
expect_exit2 "not grid" attention --preset 'attention?weights=trained&source=grid'
exit $fail
