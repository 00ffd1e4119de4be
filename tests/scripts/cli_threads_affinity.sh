#!/usr/bin/env bash
# Threads follow the job's allocation (src/core/cpu_budget.hpp): under `taskset -c 0`, what a
# Slurm cpuset of one CPU looks like, every workload's CPU backend runs one thread; OMP_NUM_THREADS
# overrides the mask and --threads overrides both; results do not depend on the count.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
unset OMP_NUM_THREADS
backend_attr() { h5dump -a /backend "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p'; }
first_cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')

expect_ok "search under taskset -c $first_cpu" taskset -c "$first_cpu" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/one.h5" --backend cpu --verbose
grep -q "cpu (1 thread," "$WORK/err.txt" && pass "--verbose names 1 thread" || fail "--verbose: $(grep worker "$WORK/err.txt")"
case $(backend_attr "$WORK/one.h5") in "cpu (1 thread,"*) pass "backend attribute: 1 thread" ;; *) fail "backend attribute: $(backend_attr "$WORK/one.h5")" ;; esac

expect_ok "allvsall under taskset" taskset -c "$first_cpu" "$HPCALIGN" allvsall -i "$Q" -o "$WORK/ava.h5" --backend cpu --quiet
case $(backend_attr "$WORK/ava.h5") in "cpu (1 thread,"*) pass "allvsall: 1 thread" ;; *) fail "allvsall backend attribute: $(backend_attr "$WORK/ava.h5")" ;; esac

expect_ok "OMP_NUM_THREADS=3 under taskset" env OMP_NUM_THREADS=3 taskset -c "$first_cpu" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/omp.h5" --backend cpu --quiet
case $(backend_attr "$WORK/omp.h5") in "cpu (3 threads,"*) pass "OMP_NUM_THREADS sets 3 threads" ;; *) fail "OMP_NUM_THREADS: $(backend_attr "$WORK/omp.h5")" ;; esac
expect_ok "--threads beats OMP_NUM_THREADS" env OMP_NUM_THREADS=3 "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/opt.h5" --backend cpu --quiet --threads 2
case $(backend_attr "$WORK/opt.h5") in "cpu (2 threads,"*) pass "--threads 2" ;; *) fail "--threads: $(backend_attr "$WORK/opt.h5")" ;; esac
OUT=$WORK/bad.h5
OMP_NUM_THREADS=x bad "malformed OMP_NUM_THREADS is an error" "OMP_NUM_THREADS='x'" search -q "$Q" -d "$DB" -o "$OUT" --backend cpu

# Unrestricted, the count is the whole mask (coreutils' nproc reads the same mask).
expect_ok "search with the whole mask" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/all.h5" --backend cpu --quiet
n=$(nproc)
case $(backend_attr "$WORK/all.h5") in "cpu ($n thread"*) pass "whole mask: $n thread(s)" ;; *) fail "whole mask ($n): $(backend_attr "$WORK/all.h5")" ;; esac
same_hits "1 thread and the whole mask give identical hits" "$WORK/one.h5" "$WORK/all.h5"
finish
