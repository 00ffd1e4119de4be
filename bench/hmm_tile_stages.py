#!/usr/bin/env python3
"""Sums of the per-tile stage times that `hpcalign hmmsearch` prints under HPCALIGN_CUDA_TIMING=1.

  hmm_tile_stages.py RUN.log [RUN.log ...]      (the run's stderr; --verbose adds the phase lines)

Per log: the engine's filter stages summed over the tiles ("msv tile:" lines: msv, pvalues,
bias, select, vit, after-vit, count; each with "cpu", the CPU of the thread that timed it: all
the stage's where its pool has one thread, 2 GPUs at --cpu 32), the MSV calls against their
kernels ("msv ... kernel X ms, call Y ms"), and the worker's split of each tile ("hmmsearch tile N:" lines: the wait for the
filters, run ahead on a thread of their own, against the survivors' stage "after"). Sums are
thread-seconds: a stage run on one thread a worker sums twice what it does on two, for the same
CPU work. Then the --verbose lines that place the tile phase (load, first and last tile, GPUs).
"""
import collections
import re
import sys


def summary(path):
    sums = collections.defaultdict(float)
    tiles = collections.Counter()
    phase = []
    for line in open(path):
        m = re.match(r"(msv tile|hmmsearch tile \d+): (.*)", line)
        if m:
            kind = "filters" if m.group(1) == "msv tile" else "worker"
            tiles[kind] += 1
            for stage, ms, cpu in re.findall(r"(\S+) ([\d.]+) ms(?: \(cpu ([\d.]+)\))?", m.group(2)):
                sums[kind, stage] += float(ms) / 1000
                if cpu:
                    sums[kind, stage + " cpu"] += float(cpu) / 1000
            continue
        m = re.match(r"msv .*kernel ([\d.]+) ms, call ([\d.]+) ms", line)
        if m:
            sums["msv calls", "kernel"] += float(m.group(1)) / 1000
            sums["msv calls", "call"] += float(m.group(2)) / 1000
        elif re.search(r"hmmsearch: (load|after the load|GPU \d+:)|ready .* after the process", line):
            phase.append(line.rstrip())
    if not tiles:
        sys.exit(f"{path}: no tile stage lines (was HPCALIGN_CUDA_TIMING=1 set?)")
    print(f"{path}: {tiles['filters']} tiles through the filters, {tiles['worker']} through the workers")
    for kind in ("filters", "msv calls", "worker"):
        stages = [(s, v) for (k, s), v in sums.items() if k == kind]
        print(f"  {kind:<9} " + "  ".join(f"{s} {v:.2f} s" for s, v in stages))
    for line in phase:
        print("  " + line)


for log in sys.argv[1:]:
    summary(log)
