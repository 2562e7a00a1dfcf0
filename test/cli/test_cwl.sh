#!/usr/bin/env bash
# The CWL tools in workflows/cwl/: validated by cwltool, then run by it
# (--no-container, kmerbloom on PATH) on the bundled example, single-end and
# paired, their outputs compared byte for byte with direct runs; MultiQC reads
# the count tool's custom content. Skipped (with the reason) when cwltool is
# missing; test/run-all.sh installs it (Debian package cwltool).
. "$(dirname "$0")/lib.sh"
CWL=$SRC/workflows/cwl
EX=$SRC/data/example.fq.gz
KBDIR=$(cd "$(dirname "$KB")" && pwd)

if ! command -v cwltool > /dev/null; then
  skip "cwltool is not installed (Debian package cwltool): CWL tools not run"
  finish
  exit
fi
# cwltool runs `kmerbloom` from PATH, the binary under test.
mkdir -p "$T/bin"
ln -s "$KBDIR/$(basename "$KB")" "$T/bin/kmerbloom"
export PATH=$T/bin:$PATH

for tool in count filter; do
  check "kmerbloom-$tool.cwl is valid CWL" cwltool --quiet --validate "$CWL/kmerbloom-$tool.cwl"
done

# run_cwl NAME TOOL JOB: runs the tool on the job file into $T/NAME.
run_cwl() {
  if (cd "$T" && cwltool --quiet --no-container --outdir "$T/$1" "$CWL/$2" "$3" > "$T/$1.out" 2> "$T/$1.err"); then
    ok "cwltool runs $2 ($1)"
  else
    bad "cwltool $2 ($1) failed: $(tail -5 "$T/$1.err")"
    return 1
  fi
}

# count: the example job shipped beside the tool.
"$KB" count "$EX" -t 2 -o "$T/direct.solid.tsv.gz" --histo "$T/direct.hist" --stats "$T/direct.stats.json" -q
if run_cwl count kmerbloom-count.cwl "$CWL/count-example.yml"; then
  same "count: solid k-mers equal a direct run's" <(gzip -dc "$T/count/example.solid.tsv.gz") <(gzip -dc "$T/direct.solid.tsv.gz")
  same "count: histogram equals a direct run's" "$T/count/example_jf.hist" "$T/direct.hist"
  check "count: -M from ram_mb reached count" grep -q '"max_memory_bytes": 524288000' "$T/count/example.stats.json"
  check "count: the output record lists the two MultiQC files" \
    grep -q '"basename": "example.stats_spectrum_mqc.json"' "$T/count.out"
  if command -v multiqc > /dev/null; then
    (cd "$T/count" && multiqc -f . -o mqc > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$T/count/mqc.out")"
    check "MultiQC reads the count tool's general statistics (sample 'example', genome size)" \
      awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /genome_size$/) c = i } $1 == "example" && c && $c > 0 { f = 1 } END { exit !f }' \
      "$T/count/mqc/multiqc_data/multiqc_general_stats.txt"
  else
    skip "multiqc is not installed: the count tool's MultiQC files not read back"
  fi
fi

# filter, single-end: the shipped job.
"$KB" filter "$EX" -t 2 -o "$T/direct.kept.fq.gz" -q
if run_cwl filter kmerbloom-filter.cwl "$CWL/filter-example.yml"; then
  same "filter: kept reads equal a direct run's" <(gzip -dc "$T/filter/example.kept.fq.gz") <(gzip -dc "$T/direct.kept.fq.gz")
  check "filter: statistics" grep -q '"reads_in": 2400' "$T/filter/filter.json"
fi

# filter, paired files with weak-k-mer trimming: the example's reads taken two
# by two as mates p0/1 p0/2, p1/1 ...
gzip -dc "$EX" | awk 'NR % 4 == 1 { i = (NR - 1) / 4; $0 = "@p" int(i / 2) "/" (i % 2 + 1) } { print > (int((NR - 1) / 4) % 2 ? "R2.fq" : "R1.fq") }' &&
  mv R1.fq R2.fq "$T/"
"$KB" filter "$T/R1.fq" "$T/R2.fq" -t 2 --trim-weak -C 10 -o "$T/direct_1.fq" -O "$T/direct_2.fq" -q
cat > "$T/paired.yml" << EOF
reads: {class: File, path: R1.fq}
reads2: {class: File, path: R2.fq}
kept: kept_1.fq
kept2: kept_2.fq
trim_weak: true
target_coverage: 10
EOF
if run_cwl paired kmerbloom-filter.cwl "$T/paired.yml"; then
  same "filter, paired: kept mate 1 equals a direct run's" "$T/paired/kept_1.fq" "$T/direct_1.fq"
  same "filter, paired: kept mate 2 equals a direct run's" "$T/paired/kept_2.fq" "$T/direct_2.fq"
  check "filter, paired: some reads trimmed" sh -c "grep -A3 '\"trimmed\"' '$T/paired/filter.json' | grep -Eq '\"reads\": [1-9]'"
fi

# A bad input is the tool's failure, with kmerbloom's message.
printf '@r1\nACGT\n+\nII\n' > "$T/bad.fq"
printf 'reads: [{class: File, path: bad.fq}]\nsample: bad\n' > "$T/bad.yml"
if (cd "$T" && cwltool --quiet --no-container --outdir "$T/bad" "$CWL/kmerbloom-count.cwl" bad.yml > "$T/bad.out" 2> "$T/bad.err"); then
  bad "count on a malformed FASTQ: cwltool reported success"
else
  check "count on a malformed FASTQ: the job fails with kmerbloom's error" grep -q "bad.fq.*record 1" "$T/bad.err"
fi
finish
