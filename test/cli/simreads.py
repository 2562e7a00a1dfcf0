#!/usr/bin/env python3
"""Deterministic simulated reads for the command-line tests (stdlib only).

A random genome (uniform ACGT, seeded), reads drawn from it at random
positions and strands, substitution errors at --error-rate, and optionally
an N in some reads, some reads shorter than k, pairs whose mates come from
independent positions (so that one mate can be at coverage while the other
is not). The same arguments always print the same bytes.

  simreads.py --genome 200000 --reads 20000 --length 150 --seed 1 > reads.fq
  simreads.py ... --pairs R1.fq R2.fq          (mates p<i>/1, p<i>/2)
  simreads.py ... --format fasta > reads.fa
"""
import argparse
import math
import random
import sys

COMPLEMENT = str.maketrans("ACGTN", "TGCAN")


def genome_of(length, seed):
    rng = random.Random(seed)
    return "".join(rng.choice("ACGT") for _ in range(length))


def substituted(seq, count, rng):
    """seq with `count` substitutions at distinct random positions."""
    out = list(seq)
    for pos in rng.sample(range(len(seq)), count):
        out[pos] = rng.choice([b for b in "ACGT" if b != out[pos]])
    return "".join(out)


def read_from(genome, length, rng, args):
    if args.short_every and rng.randrange(args.short_every) == 0:
        length = rng.randrange(1, max(2, args.short_length))
    start = rng.randrange(len(genome) - length + 1)
    s = genome[start:start + length]
    if rng.random() < 0.5:
        s = s.translate(COMPLEMENT)[::-1]
    if args.error_rate > 0:
        bases = list(s)
        # Gaps between errors are geometric: one random() per error, not per base.
        pos = -1
        while True:
            pos += 1 + int(math.log(1.0 - rng.random()) / math.log(1.0 - args.error_rate))
            if pos >= len(bases):
                break
            bases[pos] = "ACGT"[("ACGT".index(bases[pos]) + rng.randrange(1, 4)) % 4]
        s = "".join(bases)
    if args.n_every and rng.randrange(args.n_every) == 0 and s:
        p = rng.randrange(len(s))
        s = s[:p] + "N" + s[p + 1:]
    return s


def record(name, seq, fmt):
    if fmt == "fasta":
        return ">%s\n%s\n" % (name, seq)
    return "@%s\n%s\n+\n%s\n" % (name, seq, "I" * len(seq))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--genome", type=int, required=True, help="genome length (bases)")
    ap.add_argument("--reads", type=int, required=True, help="reads (pairs with --pairs)")
    ap.add_argument("--length", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--error-rate", type=float, default=0.0, help="substitutions per base")
    ap.add_argument("--n-every", type=int, default=0, help="one read in about N gets an N base")
    ap.add_argument("--short-every", type=int, default=0, help="one read in about N is shorter than --short-length")
    ap.add_argument("--short-length", type=int, default=20)
    ap.add_argument("--format", choices=["fastq", "fasta"], default="fastq")
    ap.add_argument("--pairs", nargs=2, metavar=("R1", "R2"), help="write mates to two files")
    args = ap.parse_args()

    genome = genome_of(args.genome, args.seed)
    rng = random.Random(args.seed * 1000003 + 17)
    if args.pairs:
        with open(args.pairs[0], "w") as r1, open(args.pairs[1], "w") as r2:
            for i in range(args.reads):
                r1.write(record("p%d/1" % i, read_from(genome, args.length, rng, args), args.format))
                r2.write(record("p%d/2" % i, read_from(genome, args.length, rng, args), args.format))
        return
    out = sys.stdout
    chunk = []
    for i in range(args.reads):
        chunk.append(record("r%d" % i, read_from(genome, args.length, rng, args), args.format))
        if len(chunk) == 4096:
            out.write("".join(chunk))
            chunk = []
    out.write("".join(chunk))


if __name__ == "__main__":
    main()
