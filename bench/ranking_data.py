#!/usr/bin/env python3
"""Picks the ranking benchmark's queries and database from a Pfam-labelled FASTA.

  ranking_data.py SOURCE.fa[.gz] QUERIES.fa DB.fa [--per-family-queries 3] [--per-family-db 40]

Ids carry the family ("ACC/START-END pfam=PF00009"). From every family, a fixed-seed draw takes
`--per-family-queries` queries and `--per-family-db` other members for the database (queries are
not in the database, so no self-hits). Output keeps the source's order.
"""
import argparse
import gzip
import random
import re
import sys

FAMILY = re.compile(r"\bpfam=(\S+)")


def read_fasta(path):
    opener = gzip.open if path.endswith(".gz") else open
    records = []
    with opener(path, "rt") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith(">"):
                m = FAMILY.search(line)
                if not m:
                    sys.exit(f"{path}:{number}: header without pfam=FAMILY: {line}")
                records.append([line, m.group(1), []])
            elif records:
                records[-1][2].append(line.strip())
    return [(h, fam, "".join(s)) for h, fam, s in records]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("queries")
    ap.add_argument("db")
    ap.add_argument("--per-family-queries", type=int, default=3)
    ap.add_argument("--per-family-db", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20261125)
    a = ap.parse_args()
    records = read_fasta(a.source)
    by_family = {}
    for i, (_, fam, _) in enumerate(records):
        by_family.setdefault(fam, []).append(i)
    rng = random.Random(a.seed)
    queries, db = set(), set()
    for fam in sorted(by_family):
        need = a.per_family_queries + a.per_family_db
        if len(by_family[fam]) < need:
            sys.exit(f"family {fam} has {len(by_family[fam])} members, {need} needed")
        pick = rng.sample(by_family[fam], need)
        queries.update(pick[: a.per_family_queries])
        db.update(pick[a.per_family_queries:])
    for path, chosen in ((a.queries, queries), (a.db, db)):
        with open(path, "w") as out:
            for i in sorted(chosen):
                out.write(f"{records[i][0]}\n{records[i][2]}\n")
    print(f"{len(queries)} queries, {len(db)} database sequences from {len(by_family)} families")


if __name__ == "__main__":
    main()
