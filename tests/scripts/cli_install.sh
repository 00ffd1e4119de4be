#!/usr/bin/env bash
# Packaging: `cmake --install` of this build tree puts the program, the Slurm templates, the
# --help texts and the man page in place, and `hpcalign --version` describes the build.
source "$(dirname "$0")/lib.bash"
: "${SOURCE_DIR:?the repository root}"
build=$(dirname "$HPCALIGN")
inst=$WORK/prefix

expect_ok "cmake --install" cmake --install "$build" --prefix "$inst"
for f in bin/hpcalign share/hpcalign/jobs/search.sbatch share/hpcalign/jobs/hpcalign-step.sh share/man/man1/hpcalign.1 \
         share/doc/hpcalign/LICENSE share/doc/hpcalign/NOTICE share/doc/hpcalign/hpcalign.txt share/doc/hpcalign/hpcalign-search.txt; do
  [ -s "$inst/$f" ] && pass "installed $f" || fail "missing $f"
done
[ -x "$inst/share/hpcalign/jobs/shard_fasta.py" ] && pass "shard_fasta.py stays executable" || fail "shard_fasta.py lost its execute bit"
cmp -s "$inst/share/doc/hpcalign/hpcalign-search.txt" <("$HPCALIGN" search --help) \
  && pass "installed search help equals search --help" || fail "installed search help differs from search --help"
grep -q '^\.SS msv$' "$inst/share/man/man1/hpcalign.1" && grep -q '^\.TH HPCALIGN 1' "$inst/share/man/man1/hpcalign.1" \
  && pass "man page has a title and the msv section" || fail "man page: $(head -3 "$inst/share/man/man1/hpcalign.1")"

expect_ok "installed hpcalign --version" "$inst/bin/hpcalign" --version
v=$WORK/out.txt
grep -Eq '^hpcalign [0-9]+\.[0-9]+\.[0-9]+$' "$v" && pass "--version: version" || fail "--version: $(head -1 "$v")"
# This tree is a git checkout (CI clones it): the revision is the commit, -dirty if edited.
want=$(git -C "$SOURCE_DIR" rev-parse --short=12 HEAD)
grep -Eq "^git revision: $want(-dirty)?$" "$v" && pass "--version: git revision $want" || fail "--version: $(grep revision "$v"), but HEAD is $want (a build older than the checkout?)"
grep -Eq '^CUDA backend: (off|on, architectures [0-9]+)' "$v" && pass "--version: CUDA" || fail "--version: $(grep CUDA "$v")"
grep -Eq '^CPU kernels: .* compiled; this CPU runs (avx2|sse2|neon-simde|scalar)$' "$v" && pass "--version: CPU kernels" \
  || fail "--version: $(grep CPU "$v")"

# Outside a git checkout (a release tarball): "unknown", or what -DHPCALIGN_GIT_REVISION says.
mkdir "$WORK/tarball"
cmake -DSRC="$WORK/tarball" -DOUT="$WORK/rev.hpp" -P "$SOURCE_DIR/cmake/git_revision.cmake"
grep -q '"unknown"' "$WORK/rev.hpp" && pass "no git: unknown" || fail "no git: $(cat "$WORK/rev.hpp")"
cmake -DSRC="$WORK/tarball" -DOUT="$WORK/rev.hpp" -DREVISION=v0.1.0-tar -P "$SOURCE_DIR/cmake/git_revision.cmake"
grep -q '"v0.1.0-tar"' "$WORK/rev.hpp" && pass "no git: the given revision" || fail "given revision: $(cat "$WORK/rev.hpp")"
finish
