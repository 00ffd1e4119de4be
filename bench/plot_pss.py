#!/usr/bin/env python3
"""Plot one pair of an `hpcalign pss` result: histogram of its permuted scores, the fitted
Gumbel density, and the real score.

The permuted scores are stored only when the run used --keep-scores: /pss_scores/scores is a
flat int32 column where row r of /pss owns elements [r*n_perm, (r+1)*n_perm).

usage: plot_pss.py OUT.h5 [--row R | --query ID --target ID] -o pair.png
Needs python3-h5py and python3-matplotlib (Debian packages).
"""
import argparse
import math
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt


def find_row(f, args):
    if args.query is None and args.target is None:
        return args.row
    qids = [s.decode() if isinstance(s, bytes) else s for s in f["queries/id"][:]]
    tids = [s.decode() if isinstance(s, bytes) else s for s in f["targets/id"][:]]
    q, t = qids.index(args.query), tids.index(args.target)
    for r, (qq, tt) in enumerate(zip(f["pss/query"][:], f["pss/target"][:])):
        if qq == q and tt == t:
            return r
    sys.exit(f"plot_pss: no row for {args.query} x {args.target}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("h5")
    ap.add_argument("--row", type=int, default=0, help="row of /pss (default 0)")
    ap.add_argument("--query", help="query id (with --target) instead of --row")
    ap.add_argument("--target", help="target id (with --query)")
    ap.add_argument("-o", "--out", required=True, help="PNG to write")
    args = ap.parse_args()

    with h5py.File(args.h5, "r") as f:
        if "pss_scores/scores" not in f:
            sys.exit("plot_pss: no /pss_scores/scores in the file: rerun hpcalign pss with --keep-scores")
        p = f["pss"]
        r = find_row(f, args)
        if not 0 <= r < len(p["score"]):
            sys.exit(f"plot_pss: row {r} out of range (0..{len(p['score']) - 1})")
        n = int(p["n_perm"][r])
        scores = f["pss_scores/scores"][r * n:(r + 1) * n]
        mu, lam, x = float(p["mu"][r]), float(p["lambda"][r]), int(p["score"][r])
        pval, conv = float(p["pvalue"][r]), int(p["converged"][r])
        qid = f["queries/id"][p["query"][r]]
        tid = f["targets/id"][p["target"][r]]
        qid = qid.decode() if isinstance(qid, bytes) else qid
        tid = tid.decode() if isinstance(tid, bytes) else tid
        censor = f.attrs.get("censor", "?")
        censor = censor.decode() if isinstance(censor, bytes) else censor

    fig, ax = plt.subplots(figsize=(8, 5))
    lo, hi = int(scores.min()), int(max(scores.max(), x))
    ax.hist(scores, bins=range(lo, int(scores.max()) + 2), density=True, color="#9ecae1",
            edgecolor="#4a7fb0", label=f"{n} permuted scores")
    if conv:
        xs = [lo + (hi + 5 - lo) * i / 400 for i in range(401)]
        ys = [lam * math.exp(-lam * (v - mu) - math.exp(-lam * (v - mu))) for v in xs]
        ax.plot(xs, ys, color="#d62728", lw=2, label=f"Gumbel fit: mu={mu:.2f}, lambda={lam:.3f} (censor {censor})")
    ax.axvline(x, color="black", ls="--", lw=1.5, label=f"real score {x}, P={pval:.3g}")
    ax.set_xlabel("Smith-Waterman score")
    ax.set_ylabel("density")
    ax.set_title(f"{qid} vs {tid}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"plot_pss: wrote {args.out}")


if __name__ == "__main__":
    main()
