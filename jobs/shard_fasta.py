#!/usr/bin/env python3
"""Split a FASTA file (plain or .gz) into N shards of contiguous records with about equal
residue counts: shard-0000.fa ... in OUTDIR. Contiguous, so `hpcalign merge` of the shard
results lists the queries in the original order (the merged file equals a single run).

    python3 jobs/shard_fasta.py queries.fa 16 shards/
"""
import gzip
import os
import sys


def records(path):
    opener = gzip.open if path.endswith(".gz") else open
    header, seq = None, []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith(">"):
                if header is not None:
                    yield header, seq
                header, seq = line, []
            elif header is not None:
                seq.append(line)
    if header is not None:
        yield header, seq


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, n, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if n < 1:
        sys.exit("shard count must be at least 1")
    recs = list(records(path))
    if not recs:
        sys.exit(f"{path}: no FASTA records")
    n = min(n, len(recs))
    sizes = [sum(len(l.strip()) for l in seq) for _, seq in recs]
    total = sum(sizes)
    os.makedirs(outdir, exist_ok=True)
    shard, acc, out = 0, 0, None
    for i, ((header, seq), size) in enumerate(zip(recs, sizes)):
        # Move to the next shard once this one holds its share, keeping one record per shard left.
        left = len(recs) - i
        if out is None or (shard < n - 1 and (acc >= total * (shard + 1) / n or left <= n - 1 - shard)):
            if out is not None:
                out.close()
                shard += 1
            out = open(os.path.join(outdir, f"shard-{shard:04d}.fa"), "w")
        out.write(header)
        out.writelines(seq)
        acc += size
    out.close()
    print(f"{len(recs)} records, {total} residues -> {shard + 1} shards in {outdir}")


if __name__ == "__main__":
    main()
