#!/usr/bin/env python3
"""diploid_genome.py OUTDIR [--mbp G] [--seed S]

Writes a deterministic synthetic diploid genome (python3 standard library
only, the same bytes for the same G and seed on every machine):

  OUTDIR/hap1.fa   haplotype 1: G Mbp in chromosomes of at most 30 Mbp, made
                   of random sequence (uniform ACGT), interspersed repeat
                   families and tandem repeats
  OUTDIR/hap2.fa   haplotype 2: haplotype 1 with heterozygous SNPs (~1% of
                   the positions) and a few short indels (1-10 bp, one per
                   ~10 kb); repeats are shared by both haplotypes
  OUTDIR/genome.tsv  what was built (key, value)

Interspersed repeats: families of 1-6 kb, each copied a few hundred times
(fewer on small genomes), every copy with its own divergence of 1-10% from
the family's consensus (substitutions, plus one indel per ~200 mutations) and
a random strand; together about 13% of G. Tandem repeats: arrays of 1-20 kb
of a 2-200 bp unit, 0-3% diverged, about 2% of G.
"""
import argparse
import os
import random
import sys

BASES = b"ACGT"
COMP = bytes.maketrans(b"ACGT", b"TGCA")
TO_ACGT = bytes(BASES[i % 4] for i in range(256))  # 256 / 4: uniform
OTHER = {b: [c for c in BASES if c != b] for b in BASES}
LINE = 80
CHR_MAX = 30_000_000


def random_seq(rng, n):
    return bytearray(rng.randbytes(n).translate(TO_ACGT))


def revcomp(s):
    return bytearray(bytes(s).translate(COMP)[::-1])


def diverge(rng, seq, rate):
    """A copy of seq with round(rate * len) mutations: substitutions, and
    one short indel (1-3 bp) per ~200 of them."""
    s = bytearray(seq)
    n = round(rate * len(s))
    if n == 0:
        return s
    for p in rng.sample(range(len(s)), n):
        s[p] = rng.choice(OTHER[s[p]])
    for _ in range(max(0, n // 200)):
        p = rng.randrange(len(s))
        ln = rng.randint(1, 3)
        if rng.random() < 0.5:
            del s[p:p + ln]
        else:
            s[p:p] = random_seq(rng, ln)
    return s


def build_hap1(rng, g, info):
    target_interspersed = int(0.13 * g)
    target_tandem = int(0.02 * g)
    segments = []
    # Interspersed families: ~300 copies each at 120 Mbp; fewer families and
    # copies on small genomes, so that the fraction stays near 13%.
    mean_len = 3500
    copies = max(2, min(300, target_interspersed // (mean_len * 4)))
    nfam = max(1, round(target_interspersed / (copies * mean_len)))
    total_rep = 0
    for f in range(nfam):
        consensus = random_seq(rng, rng.randint(1000, 6000))
        for _ in range(rng.randint(copies * 2 // 3, copies * 4 // 3)):
            c = diverge(rng, consensus, rng.uniform(0.01, 0.10))
            if rng.random() < 0.5:
                c = revcomp(c)
            segments.append(c)
            total_rep += len(c)
    info["repeat_families"] = nfam
    info["repeat_copies"] = len(segments)
    info["interspersed_bp"] = total_rep
    tandem = 0
    arrays = 0
    while tandem < target_tandem:
        unit = random_seq(rng, rng.choice([rng.randint(2, 6), rng.randint(7, 60), rng.randint(61, 200)]))
        length = rng.randint(1000, 20000)
        arr = (unit * (length // len(unit) + 1))[:length]
        arr = diverge(rng, arr, rng.uniform(0.0, 0.03))
        segments.append(arr)
        tandem += len(arr)
        arrays += 1
    info["tandem_arrays"] = arrays
    info["tandem_bp"] = tandem
    rng.shuffle(segments)
    rep = sum(len(s) for s in segments)
    background = g - rep
    if background < len(segments):
        sys.exit("genome too small for its repeats")
    cuts = sorted(rng.sample(range(1, background), len(segments)))
    out = bytearray()
    prev = 0
    for cut, seg in zip(cuts, segments):
        out += random_seq(rng, cut - prev)
        out += seg
        prev = cut
    out += random_seq(rng, background - prev)
    assert len(out) == g
    info["repeat_fraction"] = round(rep / g, 4)
    return out


def make_hap2(rng, h1, snp_rate, indel_every, info):
    h2 = bytearray(h1)
    nsnp = round(snp_rate * len(h2))
    for p in rng.sample(range(len(h2)), nsnp):
        h2[p] = rng.choice(OTHER[h2[p]])
    nindel = len(h2) // indel_every
    out = bytearray()
    prev = 0
    for p in sorted(rng.sample(range(len(h2) - 20), nindel)):
        if p < prev:
            continue
        ln = rng.randint(1, 10)
        if rng.random() < 0.5:  # deletion
            out += h2[prev:p]
            prev = p + ln
        else:  # insertion
            out += h2[prev:p]
            out += random_seq(rng, ln)
            prev = p
    out += h2[prev:]
    info["het_snps"] = nsnp
    info["het_indels"] = nindel
    return out


def write_fasta(path, chroms):
    with open(path, "wb") as f:
        for name, seq in chroms:
            f.write(b">" + name.encode() + b"\n")
            for i in range(0, len(seq), LINE):
                f.write(seq[i:i + LINE])
                f.write(b"\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--mbp", type=float, default=120)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--snp-rate", type=float, default=0.01)
    ap.add_argument("--indel-every", type=int, default=10000)
    a = ap.parse_args()
    g = int(a.mbp * 1_000_000)
    info = {"genome_bp": g, "seed": a.seed}
    rng = random.Random(a.seed)
    h1 = build_hap1(rng, g, info)
    nchr = max(1, -(-g // CHR_MAX))
    bounds = [g * i // nchr for i in range(nchr + 1)]
    chroms1, chroms2 = [], []
    rng2 = random.Random(a.seed + 1)
    for i in range(nchr):
        c1 = h1[bounds[i]:bounds[i + 1]]
        c2 = make_hap2(rng2, c1, a.snp_rate, a.indel_every, info_c := {})
        for k, v in info_c.items():
            info[k] = info.get(k, 0) + v
        chroms1.append((f"chr{i + 1}_hap1", c1))
        chroms2.append((f"chr{i + 1}_hap2", c2))
    info["hap2_bp"] = sum(len(c) for _, c in chroms2)
    os.makedirs(a.outdir, exist_ok=True)
    write_fasta(os.path.join(a.outdir, "hap1.fa"), chroms1)
    write_fasta(os.path.join(a.outdir, "hap2.fa"), chroms2)
    with open(os.path.join(a.outdir, "genome.tsv"), "w") as f:
        for k, v in info.items():
            f.write(f"{k}\t{v}\n")


if __name__ == "__main__":
    main()
