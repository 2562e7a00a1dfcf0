#!/usr/bin/env python3
"""An independent model of `kmerbloom filter`'s keep/drop rule, written from
docs/filter.md ("kmerbloom filter"), with exact counts in a dict where the program
uses a count-min sketch. Prints the 0-based indices of the fragments kept
(reads, or pairs), one a line, and the trimmed length of each kept read.

  filter_model.py -k 21 -C 5 R1.fq [R2.fq]        normalization, pairs with two files
  filter_model.py -k 21 -C 5 --interleaved I.fq
  filter_model.py -k 21 --no-normalize --drop-weak --solid S.tsv R1.fq R2.fq
  filter_model.py -k 21 --trim-weak --solid S.tsv reads.fq
  filter_model.py -k 21 --count-solid 2 reads.fq   (exact KMER<TAB>COUNT of the
                                                     k-mers seen >= 2 times, sorted)

The rule: a read's k-mers are its windows of k bases from ACGT only (any
other character ends the window), canonical (the smaller of the k-mer and its
reverse complement). A k-mer is weak when its count in --solid is below
--min-count. --drop-weak drops a read holding a weak k-mer; --trim-weak cuts
a read before its first weak k-mer j (keeps j + k - 1 bases, dropped when
j = 0). A read without a k-mer is short. Normalization: a read is at coverage
when at least n - floor(n/2) of its n k-mers have abundance >= C among the
reads kept so far; a fragment is kept when it is neither weak nor short and
(without normalization, or) any of its mates is below coverage; then every
k-mer of every mate is counted once per occurrence. A pair is dropped whole
when either mate is weak or short.
"""
import argparse
import sys

COMP = str.maketrans("ACGT", "TGCA")


def kmers(seq, k):
    """(start, canonical k-mer) of every window of k ACGT bases."""
    out = []
    run = 0
    s = seq.upper().replace("U", "T")
    for i, ch in enumerate(s):
        run = run + 1 if ch in "ACGT" else 0
        if run >= k:
            km = s[i - k + 1:i + 1]
            rc = km.translate(COMP)[::-1]
            out.append((i - k + 1, min(km, rc)))
    return out


def records(path):
    """Sequences of a 4-line FASTQ or a FASTA file (one or more sequence lines)."""
    with open(path) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    seqs = []
    if lines and lines[0].startswith(">"):
        for line in lines:
            if line.startswith(">"):
                seqs.append("")
            else:
                seqs[-1] += line.rstrip("\r")
        return seqs
    for i in range(0, len(lines), 4):
        seqs.append(lines[i + 1].rstrip("\r"))
    return seqs


def load_solid(path):
    counts = {}
    with open(path) as f:
        for line in f:
            km, c = line.split()
            counts[km] = int(c)
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", type=int, default=31)
    ap.add_argument("-C", type=int, default=20)
    ap.add_argument("--min-count", type=int, default=2)
    ap.add_argument("--no-normalize", action="store_true")
    ap.add_argument("--drop-weak", action="store_true")
    ap.add_argument("--trim-weak", action="store_true")
    ap.add_argument("--solid")
    ap.add_argument("--interleaved", action="store_true")
    ap.add_argument("--pair-rule", choices=["either", "both"], default="either",
                    help="keep a pair when either mate (docs/filter.md) or both mates are below coverage")
    ap.add_argument("--count-solid", type=int, metavar="N")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()

    if a.count_solid is not None:
        counts = {}
        for path in a.inputs:
            for s in records(path):
                for _, km in kmers(s, a.k):
                    counts[km] = counts.get(km, 0) + 1
        sys.stdout.write("".join("%s\t%d\n" % (km, c) for km, c in sorted(counts.items()) if c >= a.count_solid))
        return

    if len(a.inputs) == 2:
        r1, r2 = records(a.inputs[0]), records(a.inputs[1])
        frags = list(zip(r1, r2))
    elif a.interleaved:
        r = records(a.inputs[0])
        frags = list(zip(r[0::2], r[1::2]))
    else:
        frags = [(s,) for s in records(a.inputs[0])]
    solid = load_solid(a.solid) if a.solid else None
    weak_mode = "drop" if a.drop_weak else "trim" if a.trim_weak else None
    abundance = {}
    out = []
    for f, mates in enumerate(frags):
        status = "ok"
        mate_kmers, lengths = [], []
        for seq in mates:
            ks = kmers(seq, a.k)
            length = len(seq)
            if weak_mode:
                j = next((i for i, (_, km) in enumerate(ks) if solid.get(km, 0) < a.min_count), None)
                if j is not None:
                    if weak_mode == "drop" or j == 0:
                        status = "weak"
                    else:
                        length = ks[j][0] + a.k - 1
                        ks = ks[:j]
            if not ks and status == "ok":
                status = "short"
            mate_kmers.append([km for _, km in ks])
            lengths.append(length)
        if status != "ok":
            continue
        if not a.no_normalize:
            def at_coverage(ks):
                n = len(ks)
                return sum(1 for km in ks if abundance.get(km, 0) >= a.C) >= n - n // 2
            covered = [at_coverage(ks) for ks in mate_kmers]
            if all(covered) if a.pair_rule == "either" else any(covered):
                continue
            for ks in mate_kmers:
                for km in ks:
                    abundance[km] = abundance.get(km, 0) + 1
        out.append("%d\t%s\n" % (f, "\t".join(map(str, lengths))))
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
