#!/usr/bin/env bash
# The pipeline steps in workflows/: (a) the Snakemake workflow run on the
# example with --cores 2, its outputs checked against direct runs; (b) the
# Nextflow modules' script: and stub: blocks rendered for a test sample (as
# Nextflow would, with the variables substituted) and run against the real
# binary. Nextflow itself is not run (it cannot be installed here). A part
# whose tool is missing prints 'skip: ...' and passes, except in strict (CI)
# mode, where it fails (lib.sh).
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz
WF=$SRC/workflows
KBDIR=$(cd "$(dirname "$KB")" && pwd)
KBABS=$KBDIR/$(basename "$KB")

# Direct runs, the reference for both parts.
"$KB" count "$EX" -o "$T/direct.tsv" --histo "$T/direct.hist" --stats "$T/direct.json" -t 2 -q
"$KB" filter "$EX" -o "$T/direct.kept.fq.gz" -t 2 -q
mkdir -p "$T/direct-mqc"
"$KB" count "$EX" -o /dev/null --stats "$T/direct-mqc/ex.stats.json" --sample ex -t 2 -q  # MultiQC files for sample ex
gzip -dc "$T/direct.kept.fq.gz" > "$T/direct.kept.fq"
# gz_same WHAT FILE.gz PLAIN: FILE.gz exists and decompresses to PLAIN.
gz_same() {
  if [ ! -s "$2" ]; then bad "$1: $2 is missing or empty"; return; fi
  gzip -dc "$2" > "$T/gz_same.out" || { bad "$1: $2 is not gzip"; return; }
  same "$1" "$T/gz_same.out" "$3"
}
tail -n +2 "$T/direct.hist" > "$T/direct.hist2"

# --- (a) Snakemake ------------------------------------------------------------------
if ! need snakemake; then
  :
else
  run_snakemake() {  # DIR, then --config KEY=VALUE...
    local dir=$1; shift
    mkdir -p "$dir"
    if [ -n "${SAMPLES_TSV:-}" ]; then printf '%b' "$SAMPLES_TSV" > "$dir/samples.tsv"
    else printf 'sample\treads\nex\t%s\n' "${READS:-$EX}" > "$dir/samples.tsv"; fi
    (cd "$dir" && snakemake -s "$WF/snakemake/Snakefile" --configfile "$WF/snakemake/config.yaml" --cores 2 -q \
      --config kmerbloom="$KBABS" samples=samples.tsv "$@" > snakemake.out 2>&1) || {
      bad "snakemake run in $dir failed: $(tail -20 "$dir/snakemake.out")"
      return 1
    }
  }
  R=$T/wf1/results
  if run_snakemake "$T/wf1"; then
    ok "snakemake workflow runs with --cores 2"
    gz_same "workflow solid k-mers equal a direct count" "$R/ex/ex.solid.tsv.gz" "$T/direct.tsv"
    same "workflow histogram equals a direct count's" "$R/ex/ex_jf.hist" "$T/direct.hist"
    for key in reads kmers_total kmers_distinct kmers_solid kmers_singleton max_count; do
      want=$(grep -m1 "\"$key\":" "$T/direct.json")
      grep -qF -- "$want" "$R/ex/ex.stats.json" || bad "workflow stats: $key differs from the direct run ($want)"
    done
    ok "workflow statistics equal the direct run's"
    check "per-rule logs and benchmarks" test -s "$R/logs/ex/count.log" -a -s "$R/benchmarks/ex/count.tsv" \
      -a -s "$R/benchmarks/ex/estimate.tsv"
    check "count ran under -M from the estimated mem_mb" grep -Eq '"max_memory_bytes": [1-9]' "$R/ex/ex.stats.json"
    solid=$(wc -l < "$T/direct.tsv")
    check "summary.tsv: one row per sample" awk -F'\t' -v s="$solid" \
      'NR == 1 && $1 != "sample" { exit 1 } NR == 2 && ($1 != "ex" || $6 != s) { exit 1 } END { exit NR != 2 }' "$R/summary.tsv"
    same "workflow MultiQC general statistics equal a direct count's" "$R/ex/ex.stats_mqc.json" "$T/direct-mqc/ex.stats_mqc.json"
    same "workflow MultiQC spectrum equals a direct count's" "$R/ex/ex.stats_spectrum_mqc.json" \
      "$T/direct-mqc/ex.stats_spectrum_mqc.json"
    if need multiqc; then
      (cd "$R" && multiqc -f . -o mqc > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$R/mqc.out")"
      check "MultiQC reads the general statistics, genome size included" awk -F'\t' -v s="$solid" \
        'NR == 1 { for (i = 1; i <= NF; i++) { if ($i ~ /kmers_solid$/) c = i; if ($i ~ /genome_size$/) g = i } }
         $1 == "ex" && c && g && $c == s && $g > 0 { f = 1 } END { exit !f }' "$R/mqc/multiqc_data/multiqc_general_stats.txt"
      check "MultiQC reads the spectrum (line plot)" grep -q "kmerbloom_spectrum: Found 1 samples" "$R/mqc.out"
      check "MultiQC jellyfish module names the sample 'ex'" grep -q $'\tex\t' "$R/mqc/multiqc_data/multiqc_sources.txt"
    fi
  fi

  # Scatter/gather: the sample's reads in two files (chunks), each binned by
  # one job, the bins counted by 3 jobs; with the per-sample filter and
  # filter files.
  R=$T/wf3/results
  gzip -dc "$EX" > "$T/ex.fq"
  head -n 4000 "$T/ex.fq" | gzip -1 > "$T/ex.0.fq.gz"
  tail -n +4001 "$T/ex.fq" > "$T/ex.1.fq"
  if READS="$T/ex.0.fq.gz,$T/ex.1.fq" run_snakemake "$T/wf3" partitions=3 bins=32 'filter={"enabled": True}' \
    'build={"enabled": True, "expected": 40000}'; then
    ok "snakemake workflow runs with partitions=3, filter and build"
    check "two bin jobs (one per reads file) and three count jobs ran" \
      test -s "$R/logs/ex/bin.1.log" -a ! -e "$R/logs/ex/bin.2.log" -a -s "$R/logs/ex/count.2.log" -a ! -e "$R/logs/ex/count.3.log"
    check "the bin files were temporary" test ! -e "$R/ex/bins/0.kbin"
    gz_same "gathered partitions equal a direct count" "$R/ex/ex.solid.tsv.gz" "$T/direct.tsv"
    same "gathered histogram equals the direct count's, row 1 too" "$R/ex/ex_jf.hist" "$T/direct.hist"
    check "gathered stats: solid k-mers summed" grep -q "\"kmers_solid\": $(wc -l < "$T/direct.tsv")," "$R/ex/ex.stats.json"
    check "no partition's MultiQC file is left to MultiQC" test ! -e "$R/ex/parts/0.stats_mqc.json"
    # Each partition's spectrum has the sample's shape: their genome sizes add
    # up to the direct count's within 1%, coverage and error share alike.
    check "gathered MultiQC row: genome size, coverage, error share within 1% of a direct count's" python3 -c '
import json, sys
a, b = (json.load(open(p))["data"]["ex"] for p in sys.argv[1:])
assert all(a[k] == b[k] for k in ("reads", "kmers_solid")), (a, b)
assert all(abs(a[k] / b[k] - 1) < 0.01 for k in ("genome_size", "peak_coverage", "error_share")), (a, b)
' "$R/ex/ex.stats_mqc.json" "$T/direct-mqc/ex.stats_mqc.json"
    check "gathered MultiQC spectrum: rows >= 2 equal a direct count's" python3 -c '
import json, sys
a, b = (json.load(open(p))["data"]["ex"] for p in sys.argv[1:])
assert len(a) > 20 and {c: n for c, n in a.items() if c != "1"} == {c: n for c, n in b.items() if c != "1"}, (a, b)
' "$R/ex/ex.stats_spectrum_mqc.json" "$T/direct-mqc/ex.stats_spectrum_mqc.json"
    gz_same "per-sample filter equals a direct kmerbloom filter" "$R/ex/ex.kept.fq.gz" "$T/direct.kept.fq"
    "$KB" build "$EX" --expected 40000 -o "$T/direct.kbf" -t 2 -q
    same "per-sample filter file equals a direct build" "$R/ex/ex.kbf" "$T/direct.kbf"
    same "union of one sample's filter is that filter" "$R/all_samples.kbf" "$T/direct.kbf"
  fi

  # Genome profiling after the count: the genome profile, an assembly's QV,
  # and a set operation between two samples; each equal to the same
  # subcommand run directly.
  R=$T/wf5/results
  head -n 4000 "$T/ex.fq" > "$T/half.fq"
  awk 'NR % 4 == 2 && NR < 400 { print ">c" NR; print }' "$T/ex.fq" > "$T/asm.fa"
  if SAMPLES_TSV="sample\treads\nex\t$EX\nhalf\t$T/half.fq\n" run_snakemake "$T/wf5" \
    "qv={'assemblies': {'ex': '$T/asm.fa'}}" "sets={'only_ex': {'op': 'diff', 'samples': ['ex', 'half']}}" \
    "hetmers={'enabled': True}" "profile={'enabled': True, 'ploidy': 1}"; then
    "$KB" hetmers "$T/direct.tsv" -o "$T/direct-het" -q
    (cd "$T/wf5" && "$KB" profile results/ex/ex.stats.json -p 1 -o "$T/direct.profile.txt" -q)
    same "workflow profile equals a direct kmerbloom profile of its statistics" "$R/ex/ex.profile.txt" \
      "$T/direct.profile.txt"
    check "workflow profile fitted the spectrum, with MultiQC content and a page beside it" \
      eval "grep -q 'verdict = fitted' '$R/ex/ex.profile.txt' && test -s '$R/ex/ex.profile_mqc.json' && grep -q '<svg' '$R/ex/ex.profile.html'"
    same "workflow hetmers equals a direct kmerbloom hetmers" "$R/ex/ex.smu" "$T/direct-het.smu"
    "$KB" count "$EX" -k 31 -c 1 --format kff -o "$T/all.kff" -t 2 -q
    "$KB" qv "$T/asm.fa" --reads "$T/all.kff" -o "$T/direct-qv" -q
    same "workflow qv equals a direct kmerbloom qv" "$R/ex/qv/ex.qv" "$T/direct-qv.qv"
    same "workflow completeness equals the direct one's" "$R/ex/qv/ex.completeness.stats" "$T/direct-qv.completeness.stats"
    "$KB" count "$T/half.fq" -k 31 -o "$T/half.tsv" -t 2 -q
    "$KB" sets diff "$T/direct.tsv" "$T/half.tsv" -o "$T/only_ex.tsv" -q
    gz_same "workflow sets diff equals a direct kmerbloom sets diff" "$R/sets/only_ex.tsv.gz" "$T/only_ex.tsv"
    check "the all-k-mer count for qv was temporary" test ! -e "$R/ex/ex.all.kff"
  fi

  # Mates in two files named S_R1, S_R2: filtered as pairs, never apart.
  R=$T/wf4/results
  awk 'NR % 8 >= 1 && NR % 8 <= 4' "$T/ex.fq" > "$T/ex_R1.fq"
  awk 'NR % 8 == 1 { name = $0 } NR % 8 == 5 { print name } NR % 8 >= 6 || NR % 8 == 0' "$T/ex.fq" > "$T/ex_R2.fq"
  if READS="$T/ex_R1.fq,$T/ex_R2.fq" run_snakemake "$T/wf4" 'filter={"enabled": True}'; then
    "$KB" filter "$T/ex_R1.fq" "$T/ex_R2.fq" -o "$T/pair1.fq" -O "$T/pair2.fq" -t 2 -q
    gz_same "paired sample: mates 1 kept as a direct filter -o -O keeps them" "$R/ex/ex_1.kept.fq.gz" "$T/pair1.fq"
    gz_same "paired sample: mates 2 likewise" "$R/ex/ex_2.kept.fq.gz" "$T/pair2.fq"
    check "summary.tsv carries the spectrum's verdict" awk -F'\t' 'NR == 1 && $NF != "spectrum" { exit 1 }
      NR == 2 && $NF !~ /reliable/ { exit 1 }' "$R/summary.tsv"
  fi

  # kmerbloom not on PATH (the config's default name): refused before any
  # job, the reason on the terminal, not in a job's log.
  mkdir -p "$T/wf6" && printf 'sample\treads\nex\t%s\n' "$EX" > "$T/wf6/samples.tsv"
  (cd "$T/wf6" && PATH=/usr/bin:/bin snakemake -s "$WF/snakemake/Snakefile" --configfile "$WF/snakemake/config.yaml" \
    --cores 1 -q --config kmerbloom=kmerbloom-not-here samples=samples.tsv > out.txt 2>&1) && bad "a missing kmerbloom ran"
  check "a missing kmerbloom is named before any job, with the config key" \
    eval "grep -q \"cannot run 'kmerbloom-not-here --help' (set config kmerbloom)\" '$T/wf6/out.txt' && [ ! -d '$T/wf6/results' ]"
fi

# --- (b) Nextflow modules: script: and stub: blocks run for a test sample ---------------
if ! need python3; then
  :
else
  # render MODULE BLOCK NAME=VALUE...: the block's command string as Nextflow
  # would run it (common indent stripped, Groovy escapes and variables resolved).
  # Every variable the block uses and every `def` it declares must be given.
  render() {
    python3 - "$@" << 'PY'
import re, sys, textwrap
module, block, *pairs = sys.argv[1:]
values = dict(p.split("=", 1) for p in pairs)
text = open(module).read()
m = re.search(r"^    " + block + r":\n(.*?)^    \"\"\"\n(.*?)^    \"\"\"\n", text, re.S | re.M)
if not m:
    sys.exit(f"{module}: no {block}: block")
for name in re.findall(r"^\s*def (\w+)\s*=", m.group(1), re.M):
    if name not in values:
        sys.exit(f"{module}: {block}: def {name} has no test value")
def token(t):
    if t.group(0) == "\\\\":
        return "\\"
    if t.group(0) == "\\$":
        return "$"
    name = t.group(1) or t.group(2)
    if name not in values:
        sys.exit(f"{module}: {block}: no test value for ${name}")
    return values[name]
body = textwrap.dedent(m.group(2))
print(re.sub(r"\\\\|\\\$|\$\{([^}]+)\}|\$([A-Za-z_][\w.]*)", token, body), end="")
PY
  }
  NF=$WF/nextflow/modules/kmerbloom
  versions_ok() {  # DIR PROCESS
    printf '"%s":\n    kmerbloom: %s\n' "$2" "$("$KB" --version | sed 's/^kmerbloom //')" | cmp -s - "$1/versions.yml"
  }
  # stub_run MODULE PROCESS WHAT NAME=VALUE... -- FILE...: the module's stub
  # block rendered and run in its own folder; every FILE must exist there
  # ("WHAT: every output exists") and versions.yml name PROCESS.
  stub_run() {
    local m=$1 process=$2 what=$3 vars=() files=() f S=$T/nf-$1-stub
    shift 3
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    mkdir -p "$S"
    if render "$NF/$m/main.nf" stub prefix=test "${vars[@]}" task.process="$process" > "$S/.command.sh"; then
      (cd "$S" && PATH=$KBDIR:$PATH bash -eu .command.sh) || bad "$m module stub failed"
      for f in "$@"; do files+=(-a -e "$S/$f"); done
      check "$what: every output exists" test "${files[@]:1}"
      check "$m stub: versions.yml" versions_ok "$S" "$process"
    else
      bad "$m module stub block could not be rendered"
    fi
  }
  for f in main.nf meta.yml environment.yml; do
    for m in count filter profile; do check "$m module has $f" test -s "$NF/$m/$f"; done
  done
  for m in count filter profile; do
    input='tuple val(meta), path(reads)'
    [ $m = profile ] && input='tuple val(meta), path(spectrum)'
    for word in 'tag "$meta.id"' "label 'process_" 'task.ext.args' 'task.ext.prefix' 'emit: versions' 'stub:' \
                'when:' "$input"; do
      grep -qF -- "$word" "$NF/$m/main.nf" || bad "$m/main.nf lacks $word"
    done
  done
  ok "modules have nf-core's shape (tag, label, meta, ext.args, versions, stub)"

  # count: script block, default options plus ext.args, with a memory limit.
  D=$T/nf-count
  mkdir -p "$D"
  ln -s "$EX" "$D/test.fq.gz"
  if render "$NF/count/main.nf" script args="-k 31" prefix=test memory="-M 500M" task.cpus=2 reads=test.fq.gz \
       task.process=KMERBLOOM_COUNT > "$D/.command.sh"; then
    (cd "$D" && PATH=$KBDIR:$PATH bash -eu .command.sh > .command.out 2>&1) || bad "count module script failed: $(tail -5 "$D/.command.out")"
    gz_same "count module: solid k-mers equal a direct count" "$D/test.solid.tsv.gz" "$T/direct.tsv"
    same "count module: histogram equals a direct count's" "$D/test_jf.hist" "$T/direct.hist"
    check "count module: statistics written" grep -q '"kmers_solid"' "$D/test.stats.json"
    for f in test.stats_mqc.json test.stats_spectrum_mqc.json; do
      check "count module: $f for sample 'test'" grep -q '"test": {' "$D/$f"
    done
    check "count module: versions.yml" versions_ok "$D" KMERBLOOM_COUNT
    check "count module: -M from task.memory reached count" grep -q -- "-M 500M" "$D/.command.sh"
  else
    bad "count module script block could not be rendered"
  fi
  stub_run count KMERBLOOM_COUNT "count stub" -- test.solid.tsv.gz test_jf.hist test.stats.json test.stats_mqc.json \
    test.stats_spectrum_mqc.json

  # filter: single-end sample.
  D=$T/nf-filter
  mkdir -p "$D"
  ln -s "$EX" "$D/test.fq.gz"
  if render "$NF/filter/main.nf" script args="" prefix=test memory="-M 750M" task.cpus=2 reads=test.fq.gz \
       outputs="-o test.kept.fastq.gz" task.process=KMERBLOOM_FILTER > "$D/.command.sh"; then
    (cd "$D" && PATH=$KBDIR:$PATH bash -eu .command.sh > .command.out 2>&1) || bad "filter module script failed: $(tail -5 "$D/.command.out")"
    gz_same "filter module: kept reads equal a direct kmerbloom filter" "$D/test.kept.fastq.gz" "$T/direct.kept.fq"
    check "filter module: statistics written" test -s "$D/test.filter.json"
    check "filter module: versions.yml" versions_ok "$D" KMERBLOOM_FILTER
  else
    bad "filter module script block could not be rendered"
  fi
  stub_run filter KMERBLOOM_FILTER "filter stub (paired)" names="test_1.kept.fastq.gz test_2.kept.fastq.gz" -- \
    test_1.kept.fastq.gz test_2.kept.fastq.gz test.filter.json
  # profile: on the count module's statistics (k read from them), at ploidy 2.
  D=$T/nf-profile
  mkdir -p "$D"
  if [ -s "$T/nf-count/test.stats.json" ] &&
     render "$NF/profile/main.nf" script args="-p 2" prefix=test spectrum=test.stats.json \
       task.process=KMERBLOOM_PROFILE > "$D/.command.sh"; then
    cp "$T/nf-count/test.stats.json" "$D/"
    (cd "$D" && PATH=$KBDIR:$PATH bash -eu .command.sh > .command.out 2>&1) || bad "profile module script failed: $(tail -5 "$D/.command.out")"
    "$KB" profile "$T/nf-count/test.stats.json" -p 2 -q -o "$T/nf-direct.profile.txt"
    same "profile module: the summary equals a direct run's (the input's name aside)" \
      <(sed 1,2d "$D/test.profile.txt") <(sed 1,2d "$T/nf-direct.profile.txt")
    for f in test.profile.json test.profile.svg test.profile.html; do check "profile module: $f written" test -s "$D/$f"; done
    check "profile module: MultiQC's row is sample 'test'" grep -q '"test": {' "$D/test.profile_mqc.json"
    check "profile module: versions.yml" versions_ok "$D" KMERBLOOM_PROFILE
  else
    bad "profile module script block could not be rendered (or the count module wrote no statistics)"
  fi
  stub_run profile KMERBLOOM_PROFILE "profile stub" -- test.profile.txt test.profile.json test.profile.svg \
    test.profile.html test.profile_mqc.json
fi
# --- (c) MultiQC custom content written by count --stats ---------------------------
M=$T/mqc-direct
mkdir -p "$M"
"$KB" count "$EX" -o /dev/null --stats "$M/a.stats.json" -q
gzip -dc "$EX" > "$T/ex.fq"
head -n 400 "$T/ex.fq" | "$KB" count - -o /dev/null --stats "$M/b_stats.json" -q
"$KB" count "$EX" -o /dev/null --stats "$M/c.json" --sample named --no-multiqc -q
check "count --stats S.stats.json writes S.stats_mqc.json and S.stats_spectrum_mqc.json" \
  test -s "$M/a.stats_mqc.json" -a -s "$M/a.stats_spectrum_mqc.json" -a -s "$M/b_stats_mqc.json"
check "--no-multiqc writes none" test ! -e "$M/c_mqc.json" -a ! -e "$M/c_spectrum_mqc.json"
solid=$(grep -m1 '"kmers_solid":' "$M/a.stats.json" | tr -dc 0-9)
if need multiqc; then
  (cd "$M" && multiqc -f . -o out > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$M/mqc.out")"
  check "MultiQC general statistics: sample example (named after example.fq.gz) with its solid k-mers" \
    awk -F'\t' -v s="$solid" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /kmers_solid$/) c = i } $1 == "example" && $c == s { f = 1 } END { exit !f }' \
    "$M/out/multiqc_data/multiqc_general_stats.txt"
  check "MultiQC general statistics: sample b (read from stdin: named from b_stats.json)" grep -q '^b'$'\t' "$M/out/multiqc_data/multiqc_general_stats.txt"
  check "MultiQC spectrum line plot: both samples" grep -q "kmerbloom_spectrum: Found 2 samples" "$M/mqc.out"
fi
finish
