#!/usr/bin/env python3
"""Independent oracle for `kmerbloom hetmers` (stdlib only, brute force).

  hetmer_oracle.py random K N SEED > counts.tsv
      N random canonical K-mers, sorted, with counts, built so that many differ
      at one base (families of neighbours, palindromes for even K).
  hetmer_oracle.py search COUNTS.tsv L U OUT_PREFIX
      Every pair at Hamming distance one among the k-mers of count in [L, U]
      and their reverse complements (smudgeplot's symmetric table), counts
      adding up to at most 1000; a k-mer in more than one pair is dropped;
      writes OUT_PREFIX.smu as smudgeplot's search does and OUT_PREFIX.pairs
      (one line per pair and its reverse complement, sorted).
  hetmer_oracle.py genome PLOIDY ALT_COPIES LENGTH COVERAGE SEED > reads.fq
      A random genome, PLOIDY haplotypes that differ at sites spaced more than
      40 bases apart, the alternative base on ALT_COPIES of them; error-free
      reads of 100 bases at COVERAGE per haplotype, either strand.
"""
import random
import sys

COMP = str.maketrans("ACGT", "TGCA")
MAX_SUM, MAX_MINOR = 1000, 500


def rc(s):
    return s.translate(COMP)[::-1]


def canonical(s):
    return min(s, rc(s))


def random_set(k, n, seed):
    rng = random.Random(seed)
    found = {}
    n = min(n, 4 ** k // 4)  # there are about 4^k / 2 canonical k-mers
    while len(found) < n:
        if found and rng.random() < 0.6:  # a neighbour of one already chosen
            s = list(rng.choice(sorted(found)))
            s[rng.randrange(k)] = rng.choice("ACGT")
            s = "".join(s)
        elif rng.random() < 0.1 and k % 2 == 0:  # a palindrome
            h = "".join(rng.choice("ACGT") for _ in range(k // 2))
            s = h + rc(h)
        else:
            s = "".join(rng.choice("ACGT") for _ in range(k))
        found.setdefault(canonical(s), rng.choice([rng.randrange(1, 40), rng.randrange(1, 700)]))
    for s in sorted(found):
        print(f"{s}\t{found[s]}")


def search(path, lower, upper, prefix):
    counts = {}
    for line in open(path):
        s, c = line.split()
        c = int(c)
        if lower <= c <= upper:
            counts[s] = c
            counts[rc(s)] = c
    pairs = []
    degree = dict.fromkeys(counts, 0)
    for u in counts:
        for i in range(len(u)):
            for b in "ACGT":
                v = u[:i] + b + u[i + 1:]
                if v > u and v in counts and counts[u] + counts[v] <= MAX_SUM:
                    pairs.append((u, v))
                    degree[u] += 1
                    degree[v] += 1
    grid = {}
    lines = set()
    for u, v in pairs:
        if degree[u] != 1 or degree[v] != 1:
            continue
        cu, cv = counts[u], counts[v]
        key = (cu + cv, min(cu, cv))
        grid[key] = grid.get(key, 0) + 1
        mirror = (min(rc(u), rc(v)), max(rc(u), rc(v)))
        if (u, v) <= mirror:  # one line for a pair and its reverse complement
            a, b = sorted([(cu, u), (cv, v)])
            lines.add(f"{a[1]}\t{a[0]}\t{b[1]}\t{b[0]}")
    with open(prefix + ".smu", "w") as out:
        for (total, minor), n in sorted(grid.items()):
            if minor < MAX_MINOR:
                out.write(f"{minor}\t{total - minor}\t{n}\n")
    with open(prefix + ".pairs", "w") as out:
        for line in sorted(lines):
            out.write(line + "\n")


def genome(ploidy, alt_copies, length, coverage, seed):
    rng = random.Random(seed)
    ref = [rng.choice("ACGT") for _ in range(length)]
    haps = [list(ref) for _ in range(ploidy)]
    pos = 50
    while pos < length - 50:
        alt = rng.choice([b for b in "ACGT" if b != ref[pos]])
        for h in rng.sample(range(ploidy), alt_copies):
            haps[h][pos] = alt
        pos += rng.randrange(41, 120)
    haps = ["".join(h) for h in haps]
    n = 0
    for h in haps:
        for _ in range(length * coverage // 100):
            start = rng.randrange(length - 100 + 1)
            s = h[start:start + 100]
            if rng.random() < 0.5:
                s = rc(s)
            n += 1
            sys.stdout.write(f"@r{n}\n{s}\n+\n{'I' * len(s)}\n")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "random":
        random_set(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif what == "search":
        search(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        genome(*map(int, sys.argv[2:7]))
