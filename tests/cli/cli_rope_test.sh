#!/usr/bin/env bash
# poslab-cli rope: valid calls print JSON that an independent reader (python3's json)
# accepts and that holds the expected values; invalid input exits 2 with a one-line error.
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

check_json() {  # check_json <python expression on j> <stdin> <args...>
  local expr="$1" input="$2"; shift 2
  local out
  out=$(printf '%s' "$input" | "$cli" "$@") || { echo "FAIL: '$*' exited non-zero"; fail=1; return; }
  if ! python3 -c "import json,sys,math; j=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" <<<"$out"; then
    echo "FAIL: '$*': $expr does not hold"; fail=1
  fi
}

check_json "abs(j['wavelengths_original'][0]-2*math.pi)<1e-12 and len(j['inv_freq'])==64" "" rope --dim 128 --base 10000
check_json "j['effective_base']>10000 and j['scaling']=='ntk'" "" rope --scaling ntk --factor 4
check_json "j['yarn']['low']==20 and j['yarn']['high']==46 and abs(j['attention_scale']-(0.1*math.log(16)+1))<1e-12" "" \
  rope --scaling yarn --factor 16 --L 4096
check_json "abs(j['angles'][1]['angles'][0]-1e7)<1e-3" "" rope --positions 0,1e7
check_json "abs(j['result'][0]-math.cos(5))<1e-12 and abs(j['result'][1]-math.sin(5))<1e-12" "[1,0]" \
  rope --dim 2 --positions 5 --apply
check_json "max(abs(a-b) for a,b in zip(j['result'],[0.3,-1.2,2.0,0.5]))<1e-12" "[0.3,-1.2,2.0,0.5]" \
  rope --dim 4 --positions 0 --reencode --to 0
check_json "len(j['result'])==2" "[[1,0,0,1],[0,1,1,0]]" rope --dim 4 --positions 3,7 --inverse
check_json "j['head_dim']==64 and j['base']==500000" "" rope --preset 'rope?dim=64&base=500000'

expect_exit2 "head_dim = 3" rope --dim 3
expect_exit2 "base = 1" rope --base 1
expect_exit2 "factor = 0" rope --scaling linear --factor 0
expect_exit2 "--base" rope --base ten
expect_exit2 "--positions" rope --positions 1,x,3
expect_exit2 "malformed JSON" rope --dim 4 --apply
expect_exit2 "scaling" rope --scaling huge
expect_exit2 "rope.dim" rope --preset 'rope?dim=seven'
exit $fail
