#!/usr/bin/env bash
# Every lab in the Chinese interface (issue 14): the language comes from the saved settings
# (as a user who chose View > Language > 中文 gets it), each lab opens at a large and a small
# window size in both themes, runs without a banner and keeps the language in its settings.
# Usage: i18n_test.sh <poslab> [shots_dir]   (shots_dir: keep a PNG of each run to look at)
set -u
app="$1"; shots="${2:-}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never touch the user's files
cfg="$XDG_CONFIG_HOME/poslab"; mkdir -p "$cfg"
for lab in rope attention kv arena lessons; do
  for size in 1600x1000 1024x700; do
    for theme in dark light; do
      w=${size%x*}; h=${size#*x}
      dark=true; [ "$theme" = light ] && dark=false
      printf '{"language":"zh","dark_theme":%s,"active_lab":"%s","open_labs":["%s"]}\n' \
        "$dark" "$lab" "$lab" > "$cfg/settings.json"
      shot=(); [ -n "$shots" ] && shot=(--screenshot "$shots/${lab}_zh_${theme}_${size}.png")
      err=$(bash "$(dirname "$0")/xvfb.sh" "$app" --settings --frames 8 \
            --width "$w" --height "$h" "${shot[@]}" 2>&1 >/dev/null); rc=$?
      where="lab $lab, $size, $theme theme"
      [ "$rc" -eq 0 ] || { echo "$where: exit $rc: $err"; exit 1; }
      ! grep -q "banner:" <<<"$err" || { echo "$where: a banner in Chinese mode: $err"; exit 1; }
      grep -q "active: $lab" <<<"$err" || { echo "$where: the lab did not open: $err"; exit 1; }
      grep -q '"language": *"zh"' "$cfg/settings.json" ||
        { echo "$where: the language was not kept"; cat "$cfg/settings.json"; exit 1; }
    done
  done
done
echo "ok: 5 labs x 2 sizes x 2 themes in Chinese"
