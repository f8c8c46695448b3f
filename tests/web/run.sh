#!/usr/bin/env bash
# Browser tests of the web build: installs puppeteer-core (the version tests/web/package.json
# pins; npm registry) into build/web/node once, runs tests/web/web_test.mjs in headless
# Chromium against native poslab-cli, then tests/web/page_test.mjs (the page as a web app:
# wheel, canvas size and DPR, idle, errors), tests/web/dream_paper_test.mjs (both world-model
# sizes dream as natively, by the rule it states) and tests/web/train_test.mjs (training in
# the page equals poslab-cli lm train and wm train-lab) and tests/web/frames_test.mjs (no
# frame in any lab, lesson or demo freezes the page while it computes; prints each case's
# longest frame against the 250 ms target); screenshots in build/web/screenshots.
#   tests/web/run.sh [BUILD_WEB_DIR] [NATIVE_CLI]   (defaults build/web, build/release/cli/poslab-cli)
#   POSLAB_WEB_ONLY=page tests/web/run.sh          some of them (web_test page_test dream_paper_test train frames)
# Prints "N passed, N failed" per file; exit 1 on a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
web="${1:-build/web}"
cli="${2:-build/release/cli/poslab-cli}"
for f in "$web/site/poslab.html" "$cli" /usr/bin/chromium; do
  [[ -e "$f" ]] || { echo "web tests: $f is missing (scripts/web_build.sh; scripts/setup.sh web)" >&2; exit 1; }
done
node_dir="$web/node"
if ! cmp -s tests/web/package.json "$node_dir/package.json" || [[ ! -d "$node_dir/node_modules/puppeteer-core" ]]; then
  mkdir -p "$node_dir"
  cp tests/web/package.json "$node_dir/package.json"
  (cd "$node_dir" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
rm -rf "$web/screenshots"
rc=0
for t in ${POSLAB_WEB_ONLY:-web_test page_test dream_paper_test train_test frames_test}; do
  t="${t%.mjs}"
  [[ "$t" == *_test ]] || t="${t}_test"
  echo "== tests/web/$t.mjs"
  t0=$SECONDS
  node "tests/web/$t.mjs" "$web" "$cli" "$web/screenshots" || rc=1
  echo "== tests/web/$t.mjs: $((SECONDS - t0)) s"  # where CI's web phase spends its time
done
exit "$rc"
