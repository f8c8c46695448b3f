#!/usr/bin/env bash
# poslab-cli quiz: list, show and check print JSON an independent reader (python3's json)
# accepts; checking the right answer passes, a wrong one fails; numeric questions are
# graded against the same seed; bad input exits 2 with a one-line error naming it.
set -u
cli="$1"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/../cli/cli_lib.sh"



check_json "len(j['lessons'])>=9 and all(l['status']=='ok' for l in j['lessons'])" quiz list
check_json "j['lessons'][0]['title']=='为什么注意力需要位置信息'" quiz list --lang zh
check_json "j['kind']=='single' and len(j['options'])==4 and 'correct' not in json.dumps(j)" \
  quiz show 01-why-positions q1-why-encode
check_json "j['correct'] and j['correct_options']==['C'] and len(j['explanations'])==4" \
  quiz check 01-why-positions q1-why-encode --answer C
check_json "not j['correct'] and j['chosen']==['A']" quiz check 01-why-positions q1-why-encode -a a
check_json "j['correct']" quiz check 01-why-positions q3-equivariance --answer A,B,D
check_json "not j['correct']" quiz check 01-why-positions q3-equivariance --answer A,B
check_json "j['reveal_preset'].startswith('attention?')" quiz check 01-why-positions q2-shuffle --answer A

# Numeric: compute the answer independently from the parameters `show` prints, then check it.
show=$("$cli" quiz show 03-rope q4-angle --seed 12345) || { echo "FAIL: show numeric"; fail=1; }
answer=$(python3 -c "import json,sys; p=json.load(sys.stdin)['params']; print(p['m']*p['base']**(-2*p['i']/p['d']))" <<<"$show")
check_json "j['correct'] and j['seed']==12345" quiz check 03-rope q4-angle --seed 12345 --answer "$answer"
check_json "not j['correct'] and abs(j['expected']-$answer)<1e-6" \
  quiz check 03-rope q4-angle --seed 12345 --answer "$(python3 -c "print($answer+0.5)")"
check_json "'{' not in j['prompt'] and j['seed']==7" quiz show 07-relative-biases q1-alibi-slope --seed 7 --lang zh
check_json "j['self_assessed'] and len(j['checklist'])>=2" quiz check 04-relative-proof q1-explain-relative
check_json "len(j)>=20 and all('?' in p or p.isalpha() for p in j) and 'kv?pos=rope&scenario=stitch&method=reencode' in j" quiz presets

expect_exit2 "lesson \"99-nope\"" quiz show 99-nope q1
expect_exit2 "question \"q99\"" quiz check 03-rope q99 --answer A
expect_exit2 "item \"E\"" quiz check 01-why-positions q1-why-encode --answer E
expect_exit2 "exactly one" quiz check 01-why-positions q1-why-encode --answer A,B
expect_exit2 "--answer = \"abc\"" quiz check 03-rope q4-angle --answer abc
expect_exit2 "--answer is missing" quiz check 03-rope q4-angle
expect_exit2 "--lang" quiz list --lang fr
expect_exit2 "catalog.toml: not found" quiz list --dir /nonexistent
expect_exit2 "seed" quiz show 03-rope q4-angle --seed minus

# A broken lesson is listed as broken with file and line; the others stay usable.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$(dirname "$0")/../../lessons/." "$tmp/"
printf '[[question]]\nid = "q1"\nkind = single\n' > "$tmp/02-absolute/quiz.toml"
check_json "[l['status'] for l in j['lessons']].count('broken')==1 and j['lessons'][1]['problems'][0]['line']==3" \
  quiz list --dir "$tmp"
check_json "j['correct']" quiz check 01-why-positions q1-why-encode --answer C --dir "$tmp"
expect_exit2 "is broken" quiz show 02-absolute q1 --dir "$tmp"
exit $fail
