# Shared helpers for the poslab-cli test scripts (source it after setting $cli and fail=0).
#   expect_exit2 <text> <args...>      : exit code 2 and ONE error line containing <text>
#   check_json <python expr> <args...> : stdout parses as JSON (python3) and expr(j) holds
#   check_json_in <stdin> <expr> <args...> : the same, with <stdin> piped in

expect_exit2() {
  local want="$1"; shift
  local err rc
  err=$("$cli" "$@" 2>&1 >/dev/null </dev/null); rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" <<<"$err" || [ "$(wc -l <<<"$err")" -ne 1 ]; then
    echo "FAIL: '$*' gave exit $rc, error: $err (wanted exit 2 and one line with '$want')"; fail=1
  fi
}

check_json_in() {
  local input="$1" expr="$2"; shift 2
  local out
  out=$(printf '%s' "$input" | "$cli" "$@") || { echo "FAIL: '$*' exited non-zero"; fail=1; return; }
  if ! python3 -c "import json,sys,math; j=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)" <<<"$out"; then
    echo "FAIL: '$*': $expr does not hold"; fail=1
  fi
}

check_json() {
  local expr="$1"; shift
  check_json_in "" "$expr" "$@"
}
