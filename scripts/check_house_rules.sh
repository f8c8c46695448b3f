#!/usr/bin/env bash
# House rules that check themselves (run by ctest):
#   core-headers  no file under core/ includes a GUI, GL or file-format header, a POSIX
#                 file header (user files are io/files') or a header of io/, app/ or cli/
#   format        every C++ file is formatted with the committed .clang-format
#   text-formats  no text from a file (tr(...), a variable) is a printf format (issue 36;
#                 scripts/check_format_strings.py)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
case "${1:-}" in
  core-headers)
    bad=$(grep -rnE '#[[:space:]]*include[[:space:]]*[<"](imgui|backends/|GLFW|glad|GL/|hdf5|H5|toml|nlohmann|md4c|stb|ft2build|freetype|CLI/|io/|app/|cli/|unistd\.h|fcntl\.h|dirent\.h|sys/)' core || true)
    if [[ -n "$bad" ]]; then
      echo "core/ must depend on Eigen and the standard library only; these includes break that:" >&2
      echo "$bad" >&2
      exit 1
    fi ;;
  format)
    fmt=$(command -v clang-format-14 || command -v clang-format || true)
    [[ -n "$fmt" ]] || { echo "clang-format not found (Debian package clang-format)" >&2; exit 1; }
    mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.ipp' '*.h' 2>/dev/null ||
                         find core io app cli tests bench tools fuzz -name '*.[ch]pp' 2>/dev/null)
    if ! "$fmt" --dry-run -Werror "${files[@]}" 2>/tmp/poslab_format.$$; then
      grep -m 20 'error:' /tmp/poslab_format.$$ >&2
      echo "Run: clang-format -i \$(git ls-files '*.cpp' '*.hpp' '*.ipp' '*.h')" >&2
      rm -f /tmp/poslab_format.$$
      exit 1
    fi
    rm -f /tmp/poslab_format.$$ ;;
  text-formats)
    python3 scripts/check_format_strings.py . ;;
  *) echo "usage: $0 core-headers|format|text-formats" >&2; exit 2 ;;
esac
