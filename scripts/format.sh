#!/usr/bin/env bash
# Checks or applies the repository's .clang-format with clang-format 14 (the version is pinned:
# another major version formats differently and the check would flap between machines).
#
#   scripts/format.sh --check   list files that differ from their formatted form; exit 1 if any
#   scripts/format.sh --fix     rewrite them in place (also: cmake --build <dir> --target format)
#
# Files: every *.h and *.cc that git tracks, plus new files not yet added (untracked and not
# ignored), so a change is checked before it is committed. Generated code never lives in the
# source tree; vendored code would go under third_party/, which is skipped.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

mode=${1:-}
case "$mode" in
  --check | --fix) ;;
  *)
    echo "usage: scripts/format.sh --check | --fix" >&2
    exit 2
    ;;
esac

clang_format=${CLANG_FORMAT:-}
if [ -z "$clang_format" ]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" --version | grep -q 'version 14\.'; then
      clang_format=$candidate
      break
    fi
  done
fi
if [ -z "$clang_format" ]; then
  echo "format: clang-format 14 not found (scripts/install-deps.sh installs clang-format-14)" >&2
  exit 1
fi

list_sources() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- '*.h' '*.cc'
    git ls-files --others --exclude-standard -- '*.h' '*.cc'
  else
    # Not a git checkout (an unpacked archive): every source outside build trees.
    find . \( -name 'build*' -o -name node_modules -o -path './.*' \) -prune -o \
      -type f \( -name '*.h' -o -name '*.cc' \) -print | sed 's|^\./||'
  fi
}
mapfile -t files < <(list_sources | grep -v -E '(^|/)(third_party|node_modules)/' | sort -u |
  while read -r f; do [ -f "$f" ] && echo "$f"; done)
if [ ${#files[@]} -eq 0 ]; then
  echo "format: no C++ files"
  exit 0
fi

if [ "$mode" = --fix ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$clang_format" -i --style=file
  echo "format: formatted ${#files[@]} files with $clang_format"
  exit 0
fi

# One clang-format process checks many files: starting it loads LLVM's libraries, which cost
# more than formatting a file (795 files: 115 s one process per file, some 5 s in batches). A file
# that differs gets "FILE:LINE:COL: error: code should be clang-formatted" lines on stderr.
report=$(printf '%s\0' "${files[@]}" |
  xargs -0 -n 200 "$clang_format" --style=file --dry-run --Werror 2>&1 >/dev/null) && status=0 || status=$?
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: code should be clang-formatted.*/\1/p' \
  <<<"$report" | sort -u)
if [ "$status" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  # clang-format failed for another reason (a file it cannot read or parse): say so, never "OK".
  echo "format: $clang_format failed (exit $status):" >&2
  head -20 <<<"$report" >&2
  exit 1
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "format: ${#bad[@]} of ${#files[@]} files are not formatted with $clang_format:"
  shown=0
  for f in "${bad[@]}"; do
    echo "  $f"
    # The first lines of the difference for the first few files, so a CI log says what is wrong
    # without a re-run (and stays short when many files are off).
    if [ "$shown" -lt 5 ]; then
      diff -u "$f" <("$clang_format" --style=file "$f") | sed -n '3,14p' | sed 's/^/      /' || true
      shown=$((shown + 1))
    fi
  done
  echo "format: run scripts/format.sh --fix (or cmake --build <build dir> --target format)"
  exit 1
fi
echo "format: ${#files[@]} files OK ($clang_format)"
