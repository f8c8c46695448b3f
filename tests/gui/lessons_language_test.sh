#!/usr/bin/env bash
# The lessons lab follows the interface language (issue 14): --language zh or the settings'
# language opens Chinese lessons, --language en English ones, a later switch switches them,
# and a preset's lang= (a lesson link) still picks the language explicitly. The state is read
# from the "poslab: active: <preset>" line a headless run prints (the preset names lang).
# Usage: lessons_language_test.sh <poslab>
set -u
app="$1"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never touch the user's files
cfg="$XDG_CONFIG_HOME/poslab"; mkdir -p "$cfg"
fails=0

# expect WANT DESCRIPTION ARGS...: runs the app headless and compares the lessons preset.
expect() {
  local want="$1" what="$2"; shift 2
  local err rc active
  err=$(bash "$(dirname "$0")/xvfb.sh" "$app" --frames 3 "$@" 2>&1 >/dev/null); rc=$?
  active=$(sed -n 's/^poslab: active: //p' <<<"$err" | tail -1)
  if [ "$rc" -ne 0 ] || [ "$active" != "$want" ]; then
    echo "FAIL $what: want '$want', got '$active' (exit $rc)"; echo "$err" | head -5
    fails=$((fails + 1))
  else
    echo "ok   $what: $active"
  fi
}

# settings LANGUAGE [LESSONS_PRESET]: a saved settings file with the lessons lab open.
settings() {
  local last=""
  [ -n "${2:-}" ] && last=",\"last_preset\":{\"lessons\":\"$2\"}"
  printf '{"language":"%s","active_lab":"lessons","open_labs":["lessons"]%s}\n' "$1" "$last" \
    > "$cfg/settings.json"
}

expect 'lessons?lang=zh' "--language zh" --language zh --panel lessons
expect 'lessons?lang=en' "--language en" --language en --panel lessons
settings zh
expect 'lessons?lang=zh' "settings language zh" --settings
# Saved before the lessons followed the interface (no lang= meant English): Chinese now.
settings zh 'lessons?lesson=03-rope'
expect 'lessons?lesson=03-rope&lang=zh' "settings zh, saved lesson without lang" --settings
settings zh 'lessons?lesson=03-rope&lang=en'
expect 'lessons?lesson=03-rope&lang=zh' "settings zh, saved English lesson" --settings
# A later switch of the interface language (here --language over the settings' zh).
settings zh 'lessons?lesson=03-rope'
expect 'lessons?lesson=03-rope&lang=en' "settings zh, then switched to en" --settings --language en
# A preset's lang= overrides; a preset without it (a link between lessons) keeps the language.
expect 'lessons?lesson=03-rope&lang=en' "--language zh, preset lang=en" \
  --language zh --preset 'lessons?lesson=03-rope&lang=en'
expect 'lessons?lesson=03-rope&lang=zh' "--language en, preset lang=zh" \
  --language en --preset 'lessons?lesson=03-rope&lang=zh'
expect 'lessons?lesson=03-rope&lang=zh' "--language zh, preset without lang" \
  --language zh --preset 'lessons?lesson=03-rope'
[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "ok: the lessons lab follows the interface language"
