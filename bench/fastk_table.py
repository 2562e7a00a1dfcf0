#!/usr/bin/env python3
"""fastk_table.py COUNTS.tsv L DIR/NAME

Writes a FastK k-mer table (DIR/NAME.ktab and its one part DIR/.NAME.ktab.1)
from a kmerbloom count TSV, as smudgeplot's search wants its input: trimmed
(only k-mers of count >= L) and symmetric (each k-mer in both orientations).
Counts above 32,767 (FastK's largest) are capped. Layout, as FastK's
libfastk.c reads it: the stub holds k, parts (1), the smallest count and the
prefix bytes (1) as 4-byte integers, then 256 8-byte end offsets, one per
first byte of the packed k-mers; the part holds k (4 bytes), the number of
entries (8), then per entry the packed k-mer without its first byte and a
2-byte count, sorted. Bases are 2 bits each (A C G T = 0 1 2 3), 4 a byte,
first base in the high bits, the last byte padded with zeros. Little-endian.
"""
import os
import struct
import sys

COMP = str.maketrans("ACGT", "TGCA")
CODE = {"A": 0, "C": 1, "G": 2, "T": 3}


def main(path, lower, out):
    counts = {}
    k = 0
    for line in open(path):
        kmer, count = line.split()
        k = len(kmer)
        if int(count) >= lower:
            for s in (kmer, kmer.translate(COMP)[::-1]):
                counts[s] = min(int(count), 32767)
    kbyte = (k + 3) // 4

    def packed(s):
        v = 0
        for ch in s:
            v = v * 4 + CODE[ch]
        return (v << (2 * (4 * kbyte - k))).to_bytes(kbyte, "big")

    entries = sorted((packed(s), c) for s, c in counts.items())
    ends = [0] * 256
    for b, _ in entries:
        ends[b[0]] += 1
    for x in range(1, 256):
        ends[x] += ends[x - 1]
    folder, name = os.path.dirname(out) or ".", os.path.basename(out)
    with open(os.path.join(folder, name + ".ktab"), "wb") as f:
        f.write(struct.pack("<4i", k, 1, lower, 1) + struct.pack("<256q", *ends))
    with open(os.path.join(folder, "." + name + ".ktab.1"), "wb") as f:
        f.write(struct.pack("<iq", k, len(entries)))
        f.write(b"".join(b[1:] + struct.pack("<H", c) for b, c in entries))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
