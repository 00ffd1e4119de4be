#!/usr/bin/env python3
"""Deterministic, disjoint random picks of FASTA records, file order kept in each output.

  pick_sequences.py SOURCE.fa[.gz] OUT1.fa:N1 [OUT2.fa:N2 ...]

The benchmarks use it so every run screens the same sequences (fixed seed 20261121).
"""
import gzip
import random
import sys


def read_fasta(path):
    seqs = []
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        line = line.rstrip("\n")
        if line.startswith(">"):
            seqs.append([line, []])
        elif seqs:
            seqs[-1][1].append(line.strip())
    return [(h, "".join(s)) for h, s in seqs if s]


def main():
    src, outs = sys.argv[1], [a.rsplit(":", 1) for a in sys.argv[2:]]
    seqs = read_fasta(src)
    total = sum(int(n) for _, n in outs)
    if total > len(seqs):
        sys.exit(f"{total} sequences asked for but {src} has {len(seqs)}")
    pick = random.Random(20261121).sample(range(len(seqs)), total)
    start = 0
    for path, n in outs:
        with open(path, "w") as f:
            for i in sorted(pick[start:start + int(n)]):
                f.write(f"{seqs[i][0]}\n{seqs[i][1]}\n")
        start += int(n)


if __name__ == "__main__":
    main()
