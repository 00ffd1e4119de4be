#!/usr/bin/env python3
"""Scores how well search tools rank homologs by E-value (bench/ranking.sh).

  ranking_eval.py QUERIES.fa DB.fa OUT_DIR NAME=HITS.tsv [NAME=HITS.tsv ...]
                  [--families all|even|odd] [--unscored FAM1:FAM2[,FAM3:FAM4...]]
                  [--clans FAMILY_CLAN.tsv]

HITS.tsv: one hit per line, "query<TAB>target<TAB>evalue" (extra columns ignored; a pair
listed twice keeps its smallest E-value). Truth: the same Pfam family ("pfam=PF..." in the
FASTA headers) is a homolog, a different family is not (families of one Pfam clan are
homologs too, so some "false positives" are real: the measures are lower bounds).
--unscored lists pairs of families whose cross pairs count as neither homolog nor false positive
(e.g. Pfam clan mates, as SCOP benchmarks leave out pairs of one fold but not one superfamily).
--clans reads "family<TAB>name<TAB>clan" lines (bench/pfam_clans.tsv; '#' lines are comments, an
empty clan means none) and leaves out the cross pairs of every two families of one clan.
--families keeps the queries of the families at even or odd places in sorted order (the
database stays whole): parameters chosen on one half can be checked on the other.

Measures (ties of E-value are taken as one step, never split in a tool's favour):
  sens1   per query, the fraction of its homologs ranked strictly before its first false
          positive (AUC1-like), averaged over the queries;
  pooled  every hit of every query ranked by E-value together: coverage (homologs found /
          all homolog pairs) reached at 0.1 and at 1 error (false positive) per query.
Writes OUT_DIR/ranking.tsv (the table) and OUT_DIR/ranking.png (EPQ vs coverage).
"""
import gzip
import re
import sys
from itertools import groupby

FAMILY = re.compile(r"\bpfam=(\S+)")


def read_families(path):
    """id -> family from FASTA headers (the id is the header's first word)."""
    opener = gzip.open if path.endswith(".gz") else open
    fams = {}
    with opener(path, "rt") as f:
        for number, line in enumerate(f, 1):
            if line.startswith(">"):
                m = FAMILY.search(line)
                if not m:
                    sys.exit(f"{path}:{number}: header without pfam=FAMILY")
                fams[line[1:].split()[0]] = m.group(1)
    return fams


def read_hits(path):
    """(query, target) -> smallest E-value."""
    best = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3:
                sys.exit(f"{path}:{number}: expected query, target, evalue")
            key, e = (fields[0], fields[1]), float(fields[2])
            if key not in best or e < best[key]:
                best[key] = e
    return best


def evaluate(hits, query_fam, db_fam, unscored=frozenset()):
    """hits: (query, target) -> E. Returns (sens1, curve) with curve = [(epq, coverage)]
    at the end of each tie group of the pooled ranking. unscored: frozensets of two families
    whose cross pairs are left out."""
    positives = {q: sum(1 for f in db_fam.values() if f == fam) for q, fam in query_fam.items()}
    total_pos = sum(positives.values())
    per_query = {q: [] for q in query_fam}
    pooled = []
    for (q, t), e in hits.items():
        if q not in query_fam or t not in db_fam:
            raise ValueError(f"hit {q} -> {t} names a sequence outside the benchmark")
        if frozenset((query_fam[q], db_fam[t])) in unscored:
            continue
        true = query_fam[q] == db_fam[t]
        per_query[q].append((e, true))
        pooled.append((e, true))
    sens = []
    for q, ranked in per_query.items():
        false_e = [e for e, true in ranked if not true]
        first_fp = min(false_e) if false_e else float("inf")
        tp = sum(1 for e, true in ranked if true and e < first_fp)
        sens.append(tp / positives[q] if positives[q] else 0.0)
    pooled.sort(key=lambda x: x[0])
    curve, tp, fp = [(0.0, 0.0)], 0, 0
    for _, group in groupby(pooled, key=lambda x: x[0]):
        for _, true in group:
            tp += true
            fp += not true
        curve.append((fp / len(query_fam), tp / total_pos if total_pos else 0.0))
    return sum(sens) / len(sens), curve


def coverage_at(curve, epq):
    return max(c for e, c in curve if e <= epq)


def family_half(query_fam, which):
    """The queries of the families at even (or odd) places in sorted order; all for "all"."""
    if which == "all":
        return query_fam
    families = sorted(set(query_fam.values()))
    keep = set(families[0 if which == "even" else 1::2])
    return {q: f for q, f in query_fam.items() if f in keep}


def parse_unscored(text):
    """"FAM1:FAM2,FAM3:FAM4" -> {frozenset({FAM1, FAM2}), ...}."""
    pairs = set()
    for item in filter(None, text.split(",")):
        fams = item.split(":")
        if len(fams) != 2 or not all(fams) or fams[0] == fams[1]:
            sys.exit(f"--unscored: '{item}' is not two different families FAM1:FAM2")
        pairs.add(frozenset(fams))
    return frozenset(pairs)


def parse_clans(path):
    """A family-to-clan table -> the unscored pairs: every two families of one clan."""
    members = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3 or not fields[0]:
                sys.exit(f"{path}:{number}: expected family, name, clan")
            if fields[2]:
                members.setdefault(fields[2], set()).add(fields[0])
    return frozenset(frozenset((a, b)) for fams in members.values() for a in fams for b in fams if a < b)


def main():
    import argparse
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("queries")
    ap.add_argument("db")
    ap.add_argument("out_dir")
    ap.add_argument("runs", nargs="+", metavar="NAME=HITS.tsv")
    ap.add_argument("--families", choices=("all", "even", "odd"), default="all")
    ap.add_argument("--unscored", default="")
    ap.add_argument("--clans", default="")
    a = ap.parse_args()
    queries, db, out_dir = a.queries, a.db, a.out_dir
    query_fam, db_fam = read_families(queries), read_families(db)
    unscored = parse_unscored(a.unscored) | (parse_clans(a.clans) if a.clans else frozenset())
    all_queries, query_fam = query_fam, family_half(query_fam, a.families)
    rows = []
    curves = {}
    for arg in a.runs:
        if "=" not in arg:
            sys.exit(f"'{arg}' is not NAME=HITS.tsv")
        name, path = arg.split("=", 1)
        hits = {k: e for k, e in read_hits(path).items() if k[0] in query_fam or k[0] not in all_queries}
        sens1, curve = evaluate(hits, query_fam, db_fam, unscored)
        curves[name] = curve
        rows.append((name, sens1, coverage_at(curve, 0.1), coverage_at(curve, 1.0)))
    header = "tool\tsens1 (to 1st FP)\tcoverage @0.1 EPQ\tcoverage @1 EPQ"
    lines = [header] + [f"{n}\t{s:.4f}\t{c1:.4f}\t{c2:.4f}" for n, s, c1, c2 in rows]
    with open(f"{out_dir}/ranking.tsv", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the table is written; only the plot needs matplotlib
        print("matplotlib missing (apt-get install python3-matplotlib): no plot written", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, curve in curves.items():
        ax.step([c for _, c in curve], [max(e, 1e-3) for e, _ in curve], where="post", label=name)
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 10)
    ax.set_xlabel("coverage (homolog pairs found / all)")
    ax.set_ylabel("errors per query")
    ax.set_title(f"{len(query_fam)} queries vs {len(db_fam)} Pfam domains")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(f"{out_dir}/ranking.png", dpi=120)


if __name__ == "__main__":
    main()
