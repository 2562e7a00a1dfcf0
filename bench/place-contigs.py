#!/usr/bin/env python3
"""Per-genome assembly figures from contigs placed on a set of references.

    place-contigs.py REFS.fa CONTIGS.fa ALIGNMENTS.paf

REFS.fa names its contigs GENOME|ID (bench/make-community.sh); a plain
reference (no '|') is one genome named after its first contig. ALIGNMENTS.paf
is minimap2's output of CONTIGS.fa on REFS.fa (primary alignments only,
--secondary=no), so each part of a contig is placed on one genome.

Prints TSV: genome, length, genome fraction (share of its bases covered by
alignments), NGA50 (the aligned block length at which the blocks, longest
first, cover half of the genome; 0 when they never do, as QUAST's "-"), and
the bases of contigs placed on it. A last row "all" gives the assembly's N50
and total over contigs of at least 500 bp (QUAST's default cut).
"""
import sys
from collections import defaultdict


def fasta_lengths(path):
    lengths, name = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith(">"):
                name = line[1:].split()[0]
                lengths[name] = 0
            else:
                lengths[name] += len(line.strip())
    return lengths


def genome_of(contig, plain):
    return contig.split("|", 1)[0] if "|" in contig else plain


def n50(lengths, half):
    acc = 0
    for x in sorted(lengths, reverse=True):
        acc += x
        if 2 * acc >= half:
            return x
    return 0


def main():
    refs, contigs, paf = sys.argv[1:4]
    ref_len = fasta_lengths(refs)
    plain = next(iter(ref_len)) if ref_len else ""
    genome_len = defaultdict(int)
    for name, n in ref_len.items():
        genome_len[genome_of(name, plain)] += n
    intervals = defaultdict(list)  # reference contig -> [(start, end)]
    blocks = defaultdict(list)     # genome -> aligned block lengths
    placed = defaultdict(set)      # genome -> contigs with a block on it
    with open(paf) as f:
        for line in f:
            c = line.split("\t")
            if len(c) < 12:
                continue
            target, start, end = c[5], int(c[7]), int(c[8])
            g = genome_of(target, plain)
            intervals[target].append((start, end))
            blocks[g].append(end - start)
            placed[g].add(c[0])
    covered = defaultdict(int)
    for target, iv in intervals.items():
        iv.sort()
        s, e = iv[0]
        for a, b in iv[1:]:
            if a > e:
                covered[genome_of(target, plain)] += e - s
                s, e = a, b
            else:
                e = max(e, b)
        covered[genome_of(target, plain)] += e - s
    contig_len = fasta_lengths(contigs)
    print("genome\tlength\tgenome_fraction\tNGA50\tcontig_bases")
    for g in genome_len:
        placed_bases = sum(contig_len.get(c, 0) for c in placed[g])
        print(f"{g}\t{genome_len[g]}\t{covered[g] / genome_len[g]:.4f}\t{n50(blocks[g], genome_len[g]) if blocks[g] else 0}"
              f"\t{placed_bases}")
    long_contigs = [x for x in contig_len.values() if x >= 500]
    print(f"all\t{sum(genome_len.values())}\t{sum(covered.values()) / sum(genome_len.values()):.4f}"
          f"\tN50={n50(long_contigs, sum(long_contigs))}\t{sum(long_contigs)}")


if __name__ == "__main__":
    main()
