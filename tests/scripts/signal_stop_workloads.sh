#!/usr/bin/env bash
# Graceful stop of allvsall, pss and msv (issue 7): SIGTERM or SIGUSR1 makes the run hand
# out no more tiles, deliver those in flight, mark the file (status incomplete, attribute
# stopped_by_signal) and exit 0. These workloads have no --resume: the file only records
# that the run did not finish, and can never pass for a complete one.
source "$(dirname "$0")/lib.bash"
D=$TEST_DATA
attr() { h5dump -a "/$2" "$1" 2>/dev/null | sed -n 's/.*(0): "\{0,1\}\([^"]*\)"\{0,1\}.*/\1/p'; }
awk '/^>/{n++} n>=1 && n<=300' "$D/balifam2000.fa" >"$WORK/s300.fa"
for i in $(seq 20); do cat "$D/hmm/Pkinase.hmm"; done >"$WORK/models20.hmm"

# stop NAME SIGNAL ARGS...: start hpcalign ARGS -o NAME.h5 (one CPU thread, several seconds of
# work in many tiles), signal it after 1.2 s, and check the stop.
stop() {
  local name=$1 sig=$2; shift 2
  local out=$WORK/$name.h5
  "$HPCALIGN" "$@" -o "$out" --threads 1 >"$WORK/$name.log" 2>&1 &
  local pid=$!
  sleep 1.2
  local t0=$(date +%s%N)
  kill -"$sig" "$pid"
  wait "$pid"
  local rc=$? ms=$((($(date +%s%N) - t0) / 1000000))
  echo "# $name: exit $rc ${ms} ms after SIG$sig"
  [ $rc = 0 ] && pass "$name: exit 0" || fail "$name: exit $rc: $(tail -3 "$WORK/$name.log")"
  [ "$ms" -lt 15000 ] && pass "$name: stopped within the grace time (${ms} ms)" || fail "$name: took ${ms} ms"
  [ "$(attr "$out" status)" = incomplete ] && pass "$name: status incomplete" || fail "$name: status '$(attr "$out" status)'"
  [ "$(attr "$out" stopped_by_signal)" = "SIG$sig" ] && pass "$name: stopped_by_signal=SIG$sig" || fail "$name: stopped_by_signal '$(attr "$out" stopped_by_signal)'"
  grep -q "stopped by SIG$sig.*is incomplete" "$WORK/$name.log" && pass "$name: says the file is incomplete" || fail "$name: log: $(tail -2 "$WORK/$name.log")"
}

stop allvsall_term TERM allvsall -i "$D/balifam2000.fa"
stop allvsall_usr1 USR1 allvsall -i "$D/balifam2000.fa" --score-only
stop pss_term      TERM pss -q "$D/queries3.fa" -s "$WORK/s300.fa" --query-batch 1
stop pss_usr1      USR1 pss -q "$D/queries3.fa" -s "$WORK/s300.fa" --query-batch 1
stop msv_term      TERM msv -m "$WORK/models20.hmm" -d "$D/db2M.fa" --all
stop msv_usr1      USR1 msv -m "$WORK/models20.hmm" -d "$D/db2M.fa"
# A view of a stopped allvsall file must not present it as a finished result.
"$HPCALIGN" view "$WORK/allvsall_term.h5" >"$WORK/view.txt" 2>&1
grep -qi "incomplete\|unfinished\|stopped" "$WORK/view.txt" && pass "view flags the stopped file" || echo "# view of a stopped file: $(head -c 200 "$WORK/view.txt")"
finish
