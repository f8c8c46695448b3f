#!/usr/bin/env bash
# poslab-cli rope: valid calls print JSON that an independent reader (python3's json)
# accepts and that holds the expected values; invalid input exits 2 with a one-line error.
set -u
cli="$1"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"



check_json_in "" "abs(j['wavelengths_original'][0]-2*math.pi)<1e-12 and len(j['inv_freq'])==64" rope --dim 128 --base 10000
check_json_in "" "j['effective_base']>10000 and j['scaling']=='ntk'" rope --scaling ntk --factor 4
check_json_in "" "j['yarn']['low']==20 and j['yarn']['high']==46 and abs(j['attention_scale']-(0.1*math.log(16)+1))<1e-12" \
  rope --scaling yarn --factor 16 --L 4096
check_json_in "" "abs(j['angles'][1]['angles'][0]-1e7)<1e-3" rope --positions 0,1e7
check_json_in "[1,0]" "abs(j['result'][0]-math.cos(5))<1e-12 and abs(j['result'][1]-math.sin(5))<1e-12" \
  rope --dim 2 --positions 5 --apply
check_json_in "[0.3,-1.2,2.0,0.5]" "max(abs(a-b) for a,b in zip(j['result'],[0.3,-1.2,2.0,0.5]))<1e-12" \
  rope --dim 4 --positions 0 --reencode --to 0
check_json_in "[[1,0,0,1],[0,1,1,0]]" "len(j['result'])==2" rope --dim 4 --positions 3,7 --inverse
check_json_in "" "j['head_dim']==64 and j['base']==500000" rope --preset 'rope?dim=64&base=500000'
# The wheels lab's decay plot: 512 distances over [0, max]; q = k = ones gives
# sum_i 2 cos(d theta_i), so D at d = 0; random q, k come from the portable normal.
check_json_in "" "len(j['decay']['score'])==512 and j['decay']['deltas'][-1]==100 and abs(j['decay']['score'][0]-8)<1e-12 and \
abs(j['decay']['score'][300]-sum(2*math.cos(j['decay']['deltas'][300]*10000**(-i/4)) for i in range(4)))<1e-9" \
  rope --dim 8 --decay --decay-max 100
check_json_in "" "j['decay']['vectors']=='random' and j['decay']['score']!=j['decay']['score_without_scaling']" \
  rope --preset 'rope?dim=16&scaling=linear&factor=4&qk=random' --decay
expect_exit2 "--qk" rope --decay --qk twos

expect_exit2 "head_dim = 3" rope --dim 3
expect_exit2 "base = 1" rope --base 1
expect_exit2 "factor = 0" rope --scaling linear --factor 0
expect_exit2 "--base" rope --base ten
expect_exit2 "--positions" rope --positions 1,x,3
expect_exit2 "malformed JSON" rope --dim 4 --apply
expect_exit2 "scaling" rope --scaling huge
expect_exit2 "rope.dim" rope --preset 'rope?dim=seven'
# An unknown subcommand is an error naming it, with or without --help; help still helps.
expect_exit2 'unknown subcommand "llm"' llm --help
expect_exit2 'unknown subcommand "llm"' llm
expect_exit2 'unknown subcommand "llm"' --help llm
"$cli" --help >/dev/null || { echo "FAIL: --help exits non-zero"; fail=1; }
"$cli" rope --help >/dev/null || { echo "FAIL: rope --help exits non-zero"; fail=1; }
# --version names the program and the project's version (help2man reads it for the man page).
[[ "$("$cli" --version)" =~ ^poslab-cli\ [0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  { echo "FAIL: --version prints '$("$cli" --version 2>&1)'"; fail=1; }
exit $fail
