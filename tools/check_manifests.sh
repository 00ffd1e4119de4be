#!/usr/bin/env bash
# Every file of kernels/, kernels/cpu/ and kernels/cuda/ is listed in its folder's MANIFEST.md,
# and every file a manifest lists exists (ctest: lint_manifests). A manifest lists files in
# the first cell of its table rows, in backticks (`a.hpp`, `a.cpp`); subfolders end in '/'.
#   usage: tools/check_manifests.sh SOURCE_DIR      (--self-test: shows that it catches both faults)
set -euo pipefail

check() {  # check ROOT: prints each fault, returns 1 if any
  local root=$1 dir status=0
  for dir in kernels kernels/cpu kernels/cuda; do
    local manifest=$root/$dir/MANIFEST.md
    if [ ! -f "$manifest" ]; then echo "$dir: no MANIFEST.md"; status=1; continue; fi
    local listed present
    listed=$(grep '^| `' "$manifest" | cut -d'|' -f2 | grep -o '`[^`]*`' | tr -d '`' | sort)
    present=$(cd "$root/$dir" && for f in *; do [ -d "$f" ] && echo "$f/" || echo "$f"; done | grep -vx MANIFEST.md | sort)
    local f
    for f in $(comm -13 <(echo "$listed") <(echo "$present")); do echo "$dir/$f: not in $dir/MANIFEST.md"; status=1; done
    for f in $(comm -23 <(echo "$listed") <(echo "$present")); do echo "$dir/MANIFEST.md lists $f, which does not exist"; status=1; done
    [ -z "$(echo "$listed" | uniq -d)" ] || { echo "$dir/MANIFEST.md lists twice: $(echo "$listed" | uniq -d)"; status=1; }
  done
  return $status
}

if [ "${1:-}" = --self-test ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/kernels/cpu" "$tmp/kernels/cuda"
  printf '| `cpu/` | x |\n| `cuda/` | x |\n' >"$tmp/kernels/MANIFEST.md"
  printf '| `a.hpp`, `a.cpp` | x |\n' >"$tmp/kernels/cpu/MANIFEST.md"
  printf '| `k.cu` | x |\n' >"$tmp/kernels/cuda/MANIFEST.md"
  touch "$tmp/kernels/cpu/a.hpp" "$tmp/kernels/cpu/a.cpp" "$tmp/kernels/cuda/k.cu"
  check "$tmp" >/dev/null || { echo "self-test: a complete tree was refused"; exit 1; }
  touch "$tmp/kernels/cuda/new.cu"
  grep -q 'kernels/cuda/new.cu: not in' <<<"$(check "$tmp" || true)" || { echo "self-test: an unlisted file passed"; exit 1; }
  rm "$tmp/kernels/cuda/new.cu" "$tmp/kernels/cpu/a.cpp"
  grep -q 'lists a.cpp, which does not exist' <<<"$(check "$tmp" || true)" || { echo "self-test: a missing file passed"; exit 1; }
  echo "self-test: both faults caught"
  exit 0
fi
check "${1:?usage: $0 SOURCE_DIR | --self-test}" && echo "manifests: every kernel file listed, every listed file present"
