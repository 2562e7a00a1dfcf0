#!/usr/bin/env python3
"""polyploid_genome.py OUTDIR [--mbp G] [--ploidy P] [--het H] [--repeat R] [--seed S]

Writes a deterministic synthetic genome of P haplotypes with planted figures
(python3 standard library only; the sequence helpers are diploid_genome.py's,
imported from beside this file, so the same bytes come out for the same
arguments on every machine):

  OUTDIR/hap1.fa .. hapP.fa  the P haplotypes, G Mbp each (SNPs only, no
                   indels, so every haplotype has exactly G bases): a founder
                   of random sequence (uniform ACGT) with interspersed repeat
                   families making up a share R of it, then each haplotype a
                   copy of the founder with its alleles at the variable sites
  OUTDIR/genome.tsv  what was built (key, value)

Heterozygosity H is the share of positions at which the P haplotypes are not
all identical (GenomeScope 2.0's "heterozygous (not aa..a)" rate): round(H*G)
positions are drawn, and at each one the haplotypes are split into 2 alleles
(or, for P >= 3, with probability --multiallelic into 3, and for P >= 4 at
most 4: the founder's base and distinct other bases), every allele carried by
at least one haplotype, which ones at random. genome.tsv counts the sites of
each form (form_aab, form_abc, form_aabb, ...: allele multiplicities sorted,
as GenomeScope names them), the mean share of positions at which two
haplotypes differ (pairwise_diff), and that of each haplotype from the
founder (mean_diff_from_founder).

Repeats (R > 0): 80% of the repeat bases in families of 1-6 kb copied 2-8
times, 20% in families of 200-400 bp copied 20-60 times; every copy 0-3%
diverged from its family's consensus (substitutions, one 1-3 bp indel per
~200 of them), on a random strand, scattered over the founder. The planted
share (repeat_fraction) counts every base of every copy; how many of their
k-mers really occur more than once depends on the divergence (the bench
script measures that from hap1.fa's own k-mer histogram).
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diploid_genome as dg  # noqa: E402  (random_seq, diverge, revcomp, write_fasta, OTHER)

BASES = b"ACGT"


def add_families(rng, segments, total, until, length, copies):
    """Repeat families (consensus of `length` bases, `copies` copies each,
    0-3% diverged, either strand) into segments until they hold `until`
    bases; returns the bases held and the families made."""
    families = 0
    while total < until:
        consensus = dg.random_seq(rng, rng.randint(*length))
        families += 1
        for _ in range(rng.randint(*copies)):
            c = dg.diverge(rng, consensus, rng.uniform(0.0, 0.03))
            if rng.random() < 0.5:
                c = dg.revcomp(c)
            segments.append(c)
            total += len(c)
    return total, families


def build_founder(rng, g, repeat_share, info):
    segments = []
    target = int(repeat_share * g)
    # large families: 80% of the repeat bases; small high-copy families: the rest
    total, large = add_families(rng, segments, 0, 0.8 * target, (1000, 6000), (2, 8))
    total, small = add_families(rng, segments, total, target, (200, 400), (20, 60))
    nfam = large + small
    info["repeat_families"] = nfam
    info["repeat_copies"] = len(segments)
    rng.shuffle(segments)
    rep = sum(len(s) for s in segments)
    background = g - rep
    if background < len(segments) + 1:
        sys.exit("genome too small for its repeats")
    cuts = sorted(rng.sample(range(1, background), len(segments))) if segments else []
    out = bytearray()
    prev = 0
    for cut, seg in zip(cuts, segments):
        out += dg.random_seq(rng, cut - prev)
        out += seg
        prev = cut
    out += dg.random_seq(rng, background - prev)
    # the repeats' indels change lengths by a few bases: trim or pad to G
    out = out[:g]
    if len(out) < g:
        out += dg.random_seq(rng, g - len(out))
    assert len(out) == g
    info["repeat_bp"] = rep
    info["repeat_fraction"] = round(rep / g, 4)
    return out


def form_name(counts):
    letters = "abcdefgh"
    return "".join(letters[i] * c for i, c in enumerate(sorted(counts, reverse=True)))


def make_haplotypes(rng, founder, p, het, multiallelic, info):
    g = len(founder)
    haps = [bytearray(founder) for _ in range(p)]
    nsites = round(het * g) if p > 1 else 0
    forms = {}
    diff_from_founder = [0] * p
    pair_diff = 0
    for pos in sorted(rng.sample(range(g), nsites)):
        a = founder[pos]
        nalleles = 2
        if p >= 3 and rng.random() < multiallelic:
            nalleles = 3 if p == 3 or rng.random() < 0.7 else 4
        alleles = [a] + rng.sample(dg.OTHER[a], nalleles - 1)
        order = list(range(p))
        rng.shuffle(order)
        assign = [0] * p
        for i, h in enumerate(order):
            # the first nalleles haplotypes take one allele each, so every
            # allele is carried; the others draw one at random
            assign[h] = i if i < nalleles else rng.randrange(nalleles)
        counts = [assign.count(i) for i in range(nalleles)]
        name = form_name(counts)
        forms[name] = forms.get(name, 0) + 1
        for h in range(p):
            haps[h][pos] = alleles[assign[h]]
            if assign[h] != 0:
                diff_from_founder[h] += 1
        for i in range(p):
            for j in range(i + 1, p):
                pair_diff += assign[i] != assign[j]
    info["het_sites"] = nsites
    info["het_rate"] = round(nsites / g, 6)
    npairs = p * (p - 1) // 2
    info["pairwise_diff"] = round(pair_diff / npairs / g, 6) if npairs else 0
    info["mean_diff_from_founder"] = round(sum(diff_from_founder) / p / g, 6)
    for name in sorted(forms):
        info["form_" + name] = forms[name]
    return haps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--mbp", type=float, default=2)
    ap.add_argument("--ploidy", type=int, default=2)
    ap.add_argument("--het", type=float, default=0.01)
    ap.add_argument("--repeat", type=float, default=0.0)
    ap.add_argument("--multiallelic", type=float, default=0.2,
                    help="share of the variable sites with 3 or 4 alleles when P >= 3")
    ap.add_argument("--seed", type=int, default=2024)
    a = ap.parse_args()
    if not 1 <= a.ploidy <= 8:
        sys.exit("ploidy 1 to 8")
    g = int(a.mbp * 1_000_000)
    info = {"genome_bp": g, "ploidy": a.ploidy, "seed": a.seed,
            "het_planted": a.het if a.ploidy > 1 else 0, "repeat_planted": a.repeat}
    rng = random.Random(a.seed)
    founder = build_founder(rng, g, a.repeat, info)
    haps = make_haplotypes(random.Random(a.seed + 1), founder, a.ploidy, a.het, a.multiallelic, info)
    os.makedirs(a.outdir, exist_ok=True)
    for h, seq in enumerate(haps, 1):
        dg.write_fasta(os.path.join(a.outdir, f"hap{h}.fa"), [(f"chr1_hap{h}", seq)])
    with open(os.path.join(a.outdir, "genome.tsv"), "w") as f:
        for k, v in info.items():
            f.write(f"{k}\t{v}\n")


if __name__ == "__main__":
    main()
