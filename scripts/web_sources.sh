#!/usr/bin/env bash
# Fetches the C/C++ sources the web build compiles but Debian ships only as source packages
# (Dear ImGui with its GLFW and OpenGL 3 backends: libimgui-dev has headers only; md4c) into
# build/web/src with `apt-get source`, through a private apt configuration under build/web/apt
# (one deb-src line for the mirror this system already uses), so the system's apt sources are
# never touched and nothing is copied into the repository. Safe to run again.
#   scripts/web_sources.sh [BUILD_DIR]   (default build/web)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build/web}"
mkdir -p "$build"
build="$(cd "$build" && pwd)"
src="$build/src"
if [[ -f "$src/imgui/imgui.cpp" && -f "$src/md4c/src/md4c.c" ]]; then exit 0; fi

# The Debian mirror and suite of the system's own sources (one-line or deb822 format).
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
mirror="$(
  { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
    awk -v s="$codename" '$1 == "deb" { for (i = 2; i <= NF; ++i) if ($i ~ /^https?:/ && $(i+1) == s) { print $i; exit } }'
)"
if [[ -z "$mirror" ]]; then
  mirror="$(
    { cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
      awk -v s="$codename" '
        /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; ++i) if ($i == s) found = 1 }
        /^$/ { if (found && uri) { print uri; exit } found = 0; uri = "" }
        END { if (found && uri) print uri }' | head -n 1
  )"
fi
if [[ -z "$mirror" ]]; then
  echo "web_sources: no Debian mirror for '$codename' in /etc/apt/sources.list*; add one, or" \
    "put the imgui and md4c source trees in $src/imgui and $src/md4c" >&2
  exit 1
fi

apt="$build/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename main" \
  >"$apt/sources.list"
opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
  -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=root"
  -o "Debug::NoLocking=1")
echo "== web: Dear ImGui and md4c sources from $mirror ($codename), apt-get source"
apt-get "${opts[@]}" -qq update
for pkg in imgui md4c; do
  rm -rf "$src/$pkg" "$src/$pkg"-*/
  # A mirror may lack the Debian part (.debian.tar.xz) of a source package (seen for md4c on
  # this project's mirror): the upstream tarball it did fetch is then used as it is (the
  # Debian patches of imgui and md4c change packaging only, not the files compiled here).
  (cd "$src" && apt-get "${opts[@]}" -qq source --download-only "$pkg" >/dev/null 2>"$apt/$pkg.log") || true
  dsc="$(ls "$src/${pkg}"_*.dsc 2>/dev/null | head -n 1)"
  if ! [[ -n "$dsc" ]] || ! (cd "$src" && dpkg-source --no-check -x "$dsc" "$pkg" >/dev/null 2>&1); then
    orig="$(ls "$src/${pkg}"_*.orig.tar.* 2>/dev/null | head -n 1)"
    if [[ -z "$orig" ]]; then
      echo "web_sources: apt-get source $pkg fetched nothing from $mirror; check the network," \
        "or put its source tree in $src/$pkg" >&2
      exit 1
    fi
    rm -rf "${src:?}/$pkg" && mkdir -p "$src/$pkg"
    tar -xf "$orig" -C "$src/$pkg" --strip-components=1
  fi
done
test -f "$src/imgui/imgui.cpp" && test -f "$src/md4c/src/md4c.c"
