#!/usr/bin/env python3
"""fastk_table.py COUNTS.tsv L DIR/NAME
   fastk_table.py --sorted L DIR/NAME < SYMMETRIC.tsv

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

--sorted streams a large set: standard input holds every k-mer in both
orientations already, sorted, of count >= L (`kmerbloom count
--no-canonical -c L` of the reads and their reverse complements), and is
written as it is read.
"""
import os
import struct
import sys

COMP = str.maketrans("ACGT", "TGCA")


def main(path, lower, out):
    counts = {}
    for line in open(path):
        kmer, count = line.split()
        if int(count) >= lower:
            for s in (kmer, kmer.translate(COMP)[::-1]):
                counts[s] = count
    write(lower, out, (f"{s} {c}" for s, c in sorted(counts.items())))


def write(lower, out, lines):
    """Writes the table of lines "KMER COUNT", sorted (letters sort as the packed k-mers)."""
    digits = str.maketrans("ACGT", "0123")
    folder, name = os.path.dirname(out) or ".", os.path.basename(out)
    ends = [0] * 256
    n = k = kbyte = shift = 0
    with open(os.path.join(folder, "." + name + ".ktab.1"), "wb") as f:
        f.write(struct.pack("<iq", 0, 0))
        chunk = []
        for line in lines:
            kmer, count = line.split()
            if not k:
                k = len(kmer)
                kbyte = (k + 3) // 4
                shift = 2 * (4 * kbyte - k)
            b = (int(kmer.translate(digits), 4) << shift).to_bytes(kbyte, "big")
            ends[b[0]] += 1
            chunk.append(b[1:] + struct.pack("<H", min(int(count), 32767)))
            n += 1
            if len(chunk) == 1 << 16:
                f.write(b"".join(chunk))
                chunk = []
        f.write(b"".join(chunk))
        f.seek(0)
        f.write(struct.pack("<iq", k, n))
    for x in range(1, 256):
        ends[x] += ends[x - 1]
    with open(os.path.join(folder, name + ".ktab"), "wb") as f:
        f.write(struct.pack("<4i", k, 1, lower, 1) + struct.pack("<256q", *ends))


if __name__ == "__main__":
    if sys.argv[1] == "--sorted":
        write(int(sys.argv[2]), sys.argv[3], sys.stdin)
    else:
        main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
