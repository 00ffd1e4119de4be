#!/usr/bin/env python3
"""Summary of the GPU spans that HPCALIGN_CUDA_TIMING=1 prints (kernels/cuda/gpu_timeline.hpp).

  gpu_timeline.py RUN.log [RUN.log ...]      (the run's stderr)

Each span runs from when its stream reached the work (so a kernel's span holds its wait
behind the other workers' kernels) to when the work ended. Per device: the window from the
first span to the last end; per kind (packed, fill, walk; a search also topk, sample) the spans' count, sum and
union; the time with no packed score kernel pending, split into "only other kernels" and
"nothing"; and how long 0, 1, 2, ... packed kernels were pending at once (the GPU's queue
depth of score work, which fills the tails of the persistent score kernels).
"""
import collections
import re
import sys


def union(spans):
    total, cur = 0.0, None
    for a, b in sorted(spans):
        if cur is None or a > cur[1]:
            total += cur[1] - cur[0] if cur else 0
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return total + (cur[1] - cur[0] if cur else 0)


def summary(path):
    by_device = collections.defaultdict(lambda: collections.defaultdict(list))
    for line in open(path):
        m = re.match(r"gpu span d(\d+)\.\d+ (\S+) ([\d.]+) ([\d.]+)", line)
        if m:
            by_device[m.group(1)][m.group(2)].append((float(m.group(3)), float(m.group(4))))
    if not by_device:
        sys.exit(f"{path}: no 'gpu span' lines (was HPCALIGN_CUDA_TIMING=1 set?)")
    for device, kinds in sorted(by_device.items()):
        every = [s for spans in kinds.values() for s in spans]
        t0, t1 = min(a for a, _ in every), max(b for _, b in every)
        print(f"{path} device {device}: window {t1 - t0:.1f} ms, some span active {union(every):.1f} ms")
        for kind, spans in sorted(kinds.items()):
            print(f"  {kind:<7} {len(spans):6d} spans, sum {sum(b - a for a, b in spans):8.1f} ms, "
                  f"union {union(spans):8.1f} ms")
        packed = kinds.get("packed", [])
        some = union(every)
        no_packed = t1 - t0 - union(packed)
        print(f"  no packed kernel pending {no_packed:.1f} ms: only other kernels {some - union(packed):.1f} ms, "
              f"nothing {t1 - t0 - some:.1f} ms")
        depth, pending, last = collections.Counter(), 0, t0
        for t, step in sorted([(a, 1) for a, _ in packed] + [(b, -1) for _, b in packed]):
            depth[pending] += t - last
            pending, last = pending + step, t
        print("  packed kernels pending, ms:", ", ".join(f"{k}: {v:.0f}" for k, v in sorted(depth.items())))


for log in sys.argv[1:]:
    summary(log)
