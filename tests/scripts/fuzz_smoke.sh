#!/usr/bin/env bash
# Bounded fuzzing smoke run (label fuzz): builds the libFuzzer targets (tests/fuzz/build.sh)
# and runs each parser's fuzzer for FUZZ_SECONDS (default 15) from its seed corpus. Any
# crash, sanitizer report or leak fails the test, and so does a missing clang++
# (tools/setup.sh installs clang and libclang-rt-14-dev).
set -uo pipefail
root=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
seconds=${FUZZ_SECONDS:-15}
if ! command -v clang++ >/dev/null && ! command -v clang++-14 >/dev/null; then
  echo "FAIL - clang++ missing (apt-get install clang libclang-rt-14-dev)"
  exit 1
fi
work=$(mktemp -d /tmp/hpcalign-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
bash "$root/tests/fuzz/build.sh" "$work" || { echo "FAIL - fuzzer build"; exit 1; }

failures=0
for name in fasta matrix hmm pssm; do
  mkdir -p "$work/artifacts/$name"
  # Fresh corpus dir per run (the seeds are copied so libFuzzer may add to it).
  "$work/${name}_fuzzer" "$work/corpus/$name" -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$name/" >"$work/$name.log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  if [ $rc -eq 0 ] && [ -z "$(ls -A "$work/artifacts/$name")" ]; then
    echo "ok - $name fuzzer: ${runs:-?} executions in ${seconds}s, no crash or leak"
  else
    failures=$((failures + 1))
    echo "FAIL - $name fuzzer (exit $rc):"
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$work/$name.log" | head -10
    for a in "$work/artifacts/$name"/*; do [ -f "$a" ] && { echo "--- $a (base64):"; base64 "$a" | head -20; }; done
  fi
done
echo "$((4 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
