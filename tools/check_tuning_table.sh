#!/usr/bin/env bash
# README's table of the HPCALIGN_* environment variables is the registry's
# (src/core/tuning.cpp), as `hpcalign --help-tuning --markdown` prints it. This checks that the
# lines between README's two markers are exactly that output (ctest: lint_tuning_table);
# with --update it rewrites them instead.
#   usage: tools/check_tuning_table.sh HPCALIGN_BINARY README.md [--update]
set -euo pipefail
bin=$1 readme=$2 mode=${3:-check}
begin='<!-- tuning table: `hpcalign --help-tuning --markdown`; tools/check_tuning_table.sh --update rewrites it -->'
end='<!-- end of tuning table -->'

table=$("$bin" --help-tuning --markdown)
[ -n "$table" ] || { echo "$bin --help-tuning --markdown printed nothing" >&2; exit 1; }
[ "$(grep -cxF -- "$begin" "$readme")" = 1 ] && [ "$(grep -cxF -- "$end" "$readme")" = 1 ] || {
  echo "$readme: needs one line '$begin' and one line '$end' around the table" >&2
  exit 1
}
# The README's lines strictly between the markers.
current=$(awk -v b="$begin" -v e="$end" '$0 == e { inside = 0 } inside { print } $0 == b { inside = 1 }' "$readme")

if [ "$mode" = --update ]; then
  tmp=$(mktemp)
  awk -v b="$begin" -v e="$end" -v t="$table" '$0 == b { print; print t; skip = 1; next } $0 == e { skip = 0 } !skip' \
    "$readme" >"$tmp"
  cat "$tmp" >"$readme" && rm -f "$tmp"
  exit 0
fi
if [ "$current" != "$table" ]; then
  echo "$readme: the tuning table differs from the registry's (src/core/tuning.cpp):" >&2
  diff <(printf '%s\n' "$current") <(printf '%s\n' "$table") >&2 || true
  echo "run: tools/check_tuning_table.sh $bin $readme --update" >&2
  exit 1
fi
echo "tuning table: README and registry agree ($(($(printf '%s\n' "$table" | wc -l) - 2)) variables)"
