#!/usr/bin/env python3
"""Brute-force model of `kmerbloom qv` for the command-line tests (stdlib + awk).

Applies Merqury's definitions (docs/qv.md) directly: every k-mer of the
assembly in a dictionary, every read k-mer in another, then the files of
spectra-cn.sh. The QV, error and percentage columns are computed by awk, as
Merqury's scripts compute them, so that the number formats are awk's own.

  qv_model.py --reads READS.tsv --assembly ASM.fa[.gz] --prefix P --name NAME [--solid-threshold N]
"""
import argparse
import collections
import gzip
import subprocess

COMPLEMENT = str.maketrans("ACGT", "TGCA")


def canonical(kmer):
    rc = kmer.translate(COMPLEMENT)[::-1]
    return min(kmer, rc)


def read_fasta(path):
    opener = gzip.open if path.endswith(".gz") else open
    name, seq = None, []
    with opener(path, "rt") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith(">"):
                if name is not None:
                    yield name, "".join(seq)
                name, seq = line[1:].split()[0] if line[1:].split() else "", []
            elif line:
                seq.append(line.strip())
    if name is not None:
        yield name, "".join(seq)


def kmers_of(seq, k):
    """Canonical k-mers of every window of k A/C/G/T bases (either case)."""
    seq = seq.upper()
    out = []
    for i in range(len(seq) - k + 1):
        w = seq[i:i + k]
        if all(c in "ACGT" for c in w):
            out.append(canonical(w))
    return out


def valley(hist):
    """Merqury's solid threshold: the first rise after a fall over the
    non-empty rows, minus one; 0 when there is none."""
    rows = sorted(hist.items())
    prev_slope = float("-inf")
    for i in range(1, len(rows)):
        slope = rows[i][1] - rows[i - 1][1]
        if prev_slope < 0 < slope:
            return rows[i][0] - 1
        prev_slope = slope
    return 0


def awk(program, text, **variables):
    args = ["awk"]
    for name, value in variables.items():
        args += ["-v", f"{name}={value}"]
    return subprocess.run(args + [program], input=text, capture_output=True, text=True, check=True).stdout


QV_AWK = ('{ if ($3 == 0) { print $1 "\\t" $2 "\\t" $3 "\\tna\\tna"; next }'
          '  if ($2 == 0) { print $1 "\\t" $2 "\\t" $3 "\\tinf\\t0"; next }'
          '  e = 1 - (1 - $2 / $3) ^ (1 / k); print $1 "\\t" $2 "\\t" $3 "\\t" (-10 * log(e) / log(10)) "\\t" e }')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reads", required=True)
    ap.add_argument("--assembly", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--solid-threshold", type=int)
    a = ap.parse_args()

    reads = {}
    with open(a.reads) as f:
        for line in f:
            kmer, count = line.split()
            reads[kmer] = int(count)
    k = len(next(iter(reads)))

    asm = collections.Counter()
    per_seq = []
    for name, seq in read_fasta(a.assembly):
        ks = kmers_of(seq, k)
        asm.update(ks)
        per_seq.append((name, sum(1 for x in ks if x not in reads), len(ks)))

    total = sum(asm.values())
    missing = sum(c for x, c in asm.items() if x not in reads)
    missing_distinct = sum(1 for x in asm if x not in reads)

    labels = ["read-only", "1", "2", "3", "4", ">4"]
    table = [collections.Counter() for _ in labels]
    all_reads = collections.Counter()
    for x, c in reads.items():
        table[min(asm.get(x, 0), 5)][c] += 1
        all_reads[c] += 1
    t = a.solid_threshold if a.solid_threshold is not None else valley(all_reads)
    solid = sum(1 for c in reads.values() if c > t)
    solid_in_asm = sum(1 for x, c in reads.items() if c > t and x in asm)

    p, n = a.prefix, a.name
    with open(f"{p}.qv", "w") as f:
        f.write(awk(QV_AWK, f"{n}\t{missing}\t{total}\n", k=k))
    with open(f"{p}.{n}.qv", "w") as f:
        f.write(awk(QV_AWK, "".join(f"{s}\t{m}\t{tot}\n" for s, m, tot in per_seq), k=k))
    with open(f"{p}.completeness.stats", "w") as f:
        f.write(awk('{ print $0 "\\t" ((100 * $3) / $4) }', f"{n}\tall\t{solid_in_asm}\t{solid}\n"))
    with open(f"{p}.{n}.spectra-cn.hist", "w") as f:
        f.write("Copies\tkmer_multiplicity\tCount\n")
        for label, h in zip(labels, table):
            for c in sorted(h):
                f.write(f"{label}\t{c}\t{h[c]}\n")
    with open(f"{p}.{n}.only.hist", "w") as f:
        f.write(f"1\t0\t{missing_distinct}\n2\t0\t{missing - missing_distinct}\n")
    print(t)


if __name__ == "__main__":
    main()
