#!/usr/bin/env bash
# How data/example.fq.gz was made (kept for the record; the file is committed).
# Illumina HiSeq 2500-like 150 bp reads, 30x, simulated with ART from a 12 kb
# stretch of the E. coli 536 genome that Debian's bowtie-examples ships.
# Needs: art-nextgen-simulation-tools bowtie-examples
set -euo pipefail
OUT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
gzip -dc /usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz |
  awk 'NR == 1 { print ">ecoli536_1000001_1012000"; next } { s = s $0 } END { print substr(s, 1000001, 12000) }' > "$W/ref.fa"
art_illumina -q -na -ss HS25 -i "$W/ref.fa" -l 150 -f 30 -rs 7 -o "$W/reads" > /dev/null
gzip -9 -n -c "$W/reads.fq" > "$OUT/example.fq.gz"
