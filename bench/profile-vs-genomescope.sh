#!/usr/bin/env bash
# profile-vs-genomescope.sh [SET...]    (SET: names from the matrix below; default all)
#
# Genome-profile fit against planted truth and against GenomeScope 2.0, run
# outside the project under ROOT. For every set of the matrix: a synthetic
# genome with planted figures (bench/polyploid_genome.py: P haplotypes of G
# Mbp from one founder, a known share H of variable sites and R of repeat
# bases; one set is bench/make-diploid.sh's own diploid), reads from each
# haplotype (dwgsim 2x150 bp pairs, insert 400+-50, substitution errors only,
# no mutations of its own, -H; one HiFi-like set by make-diploid.sh's pbsim),
# then
#   ROOT/sets/SET/planted.tsv       the planted figures (key, value)
#   ROOT/sets/SET/reads.histo       kmerbloom count -k 21 --histo (rows 1..10000
#                                   and the overflow row; row 1 exact)
#   ROOT/sets/SET/gs2/              GenomeScope 2.0 (genomescope.R -k 21 -p P),
#                                   timed by /usr/bin/time -v (gs2.time)
#   ROOT/sets/SET/profile.json      kmerbloom profile -k 21 --ploidy P --stats
# and prints one table (also ROOT/results.tsv): planted figures, GS2's
# length (min-max), heterozygosity, repeat share, model fit, error rate,
# kmercov, seconds and peak RSS, and whatever kmerbloom profile's JSON holds;
# then, for the sets of ploidy 3 and up, each het form's share planted, by
# GenomeScope and by kmerbloom (also ROOT/forms.tsv).
# A set whose histogram is there is not simulated again (FORCE=1 redoes it);
# GS2 and profile are run again every time.
#
# GenomeScope 2.0 is only run, never copied into the project: its source comes
# from GS2_SRC (a checkout of github.com/tbenavi1/genomescope2.0) or GS2_GIT
# (a bare git clone of it), is unpacked to ROOT/src and installed with
# R CMD INSTALL into ROOT/Rlib; genomescope.R runs with R_LIBS=ROOT/Rlib.
#
# Env: ROOT (/tmp/kmerbloom-bench/genomescope), KMERBLOOM (build/kmerbloom),
#      GS2_SRC, GS2_GIT (above), THREADS (2), SEED (4242), KEEP_READS (0: the
#      reads are deleted once counted), FORCE (0), GS2_TIMEOUT (1800 s a run).
# Needs Debian packages r-base-core r-cran-minpack.lm r-cran-argparse
# r-cran-jsonlite dwgsim pbsim pigz time python3 (installed when missing, as
# root or through sudo, without recommended packages). Time on 2 cores shared
# with compiler jobs (load 4-5): 12 minutes for all 10 sets from nothing
# (dwgsim 6.5, GenomeScope 4: its p=4 fit 30 s, p=6 fit 95-120 s; counting
# 30 s; kmerbloom profile 4 s in all), 3.5 minutes again once the histograms
# are there. Disk: 60 MB kept (histograms, genomes, GenomeScope's plots); the
# reads of one set at a time on top, at most 0.35 GB (the 200x set), 1.3 GB
# for all with KEEP_READS=1.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${ROOT:-/tmp/kmerbloom-bench/genomescope}
KMERBLOOM=${KMERBLOOM:-$HERE/../build/kmerbloom}
GS2_SRC=${GS2_SRC:-}
GS2_GIT=${GS2_GIT:-}
THREADS=${THREADS:-2}
SEED=${SEED:-4242}
KEEP_READS=${KEEP_READS:-0}
FORCE=${FORCE:-0}
GS2_TIMEOUT=${GS2_TIMEOUT:-1800}
K=21
T0=$(date +%s)
log() { printf '[gs2-bench %5ds] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }

# The matrix: name, tech (sr: dwgsim pairs; mkd: make-diploid.sh's genome
# and pairs; hifi: make-diploid.sh's pbsim on a polyploid_genome.py diploid),
# ploidy, haploid Mbp, heterozygosity (share of variable sites), repeat share,
# total coverage of the haploid length (all haplotypes together), per-base
# read error rate.
MATRIX=$(cat << 'EOF'
p1_h0_r0_c25       sr    1  2  0      0     25   0.005
p1_h0_r30_c100     sr    1  2  0      0.30  100  0.002
p2_h05_r0_c25      sr    2  2  0.005  0     25   0.002
p2_h1_r25_c100     sr    2  2  0.01   0.25  100  0.005
p2_h2_r0_c100_e1   sr    2  2  0.02   0     100  0.01
p2_mkd_c25         mkd   2  2  0.01   0.15  25   0.002
p2_h1_r0_c25_hifi  hifi  2  2  0.01   0     25   0.01
p3_h1_r0_c100      sr    3  2  0.01   0     100  0.002
p4_h2_r25_c100     sr    4  2  0.02   0.25  100  0.002
p6_h1_r0_c200      sr    6  2  0.01   0     200  0.002
EOF
)
WANT=("$@")
if [ ${#WANT[@]} -eq 0 ]; then
  mapfile -t WANT < <(awk '{ print $1 }' <<< "$MATRIX")
fi
for s in "${WANT[@]}"; do
  grep -q "^$s " <<< "$MATRIX" || { echo "no set $s in the matrix" >&2; exit 2; }
done

# apt_install_lean PACKAGE...: as bench/apt-install.sh's apt_install, without
# the recommended packages (r-base-core's pull in some 300 R packages).
apt_install_lean() {
  local missing=() p sudo=""
  for p in "$@"; do dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  log "apt-get install ${missing[*]}"
  [ -n "${APT_UPDATED:-}" ] || { $sudo apt-get update -qq; APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=1200 "${missing[@]}" > /dev/null
}
apt_install_lean r-base-core r-cran-minpack.lm r-cran-argparse r-cran-jsonlite dwgsim pbsim pigz time python3
[ -x "$KMERBLOOM" ] || { echo "no kmerbloom binary at $KMERBLOOM (set KMERBLOOM)" >&2; exit 1; }
KMERBLOOM=$(cd "$(dirname "$KMERBLOOM")" && pwd)/$(basename "$KMERBLOOM")
mkdir -p "$ROOT/sets"
ROOT=$(cd "$ROOT" && pwd)

# GenomeScope 2.0: source into ROOT/src, package into ROOT/Rlib.
if [ ! -s "$ROOT/src/genomescope.R" ]; then
  rm -rf "$ROOT/src"
  mkdir -p "$ROOT/src"
  if [ -n "$GS2_SRC" ]; then
    cp -r "$GS2_SRC"/. "$ROOT/src/"
    git -C "$GS2_SRC" rev-parse HEAD > "$ROOT/src/COMMIT" 2> /dev/null || echo unknown > "$ROOT/src/COMMIT"
  elif [ -d "$GS2_GIT" ]; then
    git --git-dir="$GS2_GIT" archive HEAD | tar -x -C "$ROOT/src"
    git --git-dir="$GS2_GIT" rev-parse HEAD > "$ROOT/src/COMMIT"
  else
    echo "no GenomeScope 2.0 source: set GS2_SRC to a checkout of tbenavi1/genomescope2.0, or GS2_GIT to a bare clone" >&2
    exit 1
  fi
fi
export R_LIBS="$ROOT/Rlib"
if ! Rscript -e 'suppressMessages(library(genomescope))' > /dev/null 2>&1; then
  log "R CMD INSTALL genomescope into $ROOT/Rlib"
  mkdir -p "$ROOT/Rlib"
  R CMD INSTALL -l "$ROOT/Rlib" "$ROOT/src" > "$ROOT/Rlib.install.log" 2>&1 ||
    { tail "$ROOT/Rlib.install.log" >&2; exit 1; }
fi
log "GenomeScope 2.0 at commit $(cat "$ROOT/src/COMMIT")"
HAVE_PROFILE=0
PROFILE_JSON=(--no-multiqc --stats)
"$KMERBLOOM" --help 2>&1 | grep -Eq '^ +profile( |$)' && HAVE_PROFILE=1
log "kmerbloom: $("$KMERBLOOM" --version 2>&1 | head -1); profile subcommand: $([ $HAVE_PROFILE = 1 ] && echo "yes (${PROFILE_JSON[*]} FILE)" || echo 'not there')"

# dwgsim_hap FASTA PAIRS ERR SEED PREFIX: pairs of one haplotype; PREFIX.ok on success.
dwgsim_hap() {
  dwgsim -z "$4" -e "$3" -E "$3" -d 400 -s 50 -N "$2" -1 150 -2 150 \
    -r 0 -R 0 -y 0 -c 0 -o 1 -H "$1" "$5" > "$5.log" 2>&1 && touch "$5.ok"
}

# simulate SET TECH P MBP HET REP COV ERR INDEX: genome, reads, counts, planted.tsv.
simulate() {
  local set=$1 tech=$2 p=$3 mbp=$4 het=$5 rep=$6 cov=$7 err=$8 idx=$9
  local d=$ROOT/sets/$set seed=$((SEED + 100 * idx)) g h pairs
  g=$(awk -v m="$mbp" 'BEGIN { printf "%.0f", m * 1e6 }')
  rm -rf "$d"
  mkdir -p "$d/work"
  local reads=()
  case $tech in
    sr | hifi)
      log "$set: genome (p=$p, $mbp Mbp, het $het, repeats $rep, seed $seed)"
      python3 "$HERE/polyploid_genome.py" "$d/genome" --mbp "$mbp" --ploidy "$p" --het "$het" \
        --repeat "$rep" --seed "$seed"
      cp "$d/genome/genome.tsv" "$d/genome.tsv"
      ;;
    mkd)
      log "$set: make-diploid.sh genome pairs (GENOME_MBP=$mbp ILLUMINA_X=$cov SEED=$seed)"
      DATA="$d/mkd" GENOME_MBP="$mbp" NAME=mkd ILLUMINA_X="$cov" SEED="$seed" \
        bash "$HERE/make-diploid.sh" genome pairs > "$d/mkd.log" 2>&1 || { tail "$d/mkd.log" >&2; exit 1; }
      mkdir -p "$d/genome"
      mv "$d/mkd/mkd_hap1.fa" "$d/genome/hap1.fa"
      mv "$d/mkd/mkd_hap2.fa" "$d/genome/hap2.fa"
      cp "$d/mkd/mkd_genome.tsv" "$d/genome.tsv"
      reads=("$d/mkd/mkd_R1.fq.gz" "$d/mkd/mkd_R2.fq.gz")
      ;;
  esac
  case $tech in
    sr)
      pairs=$(awk -v g="$g" -v x="$cov" -v p="$p" 'BEGIN { printf "%.0f", g * x / p / 300 }')
      log "$set: dwgsim $pairs pairs of 2x150 bp from each of $p haplotypes (error $err)"
      for h in $(seq 1 "$p"); do
        while [ "$(jobs -rp | wc -l)" -ge "$THREADS" ]; do wait -n || true; done
        dwgsim_hap "$d/genome/hap$h.fa" "$pairs" "$err" $((seed + h)) "$d/work/pe$h" &
      done
      wait
      for h in $(seq 1 "$p"); do
        [ -e "$d/work/pe$h.ok" ] || { tail "$d/work/pe$h.log" >&2; exit 1; }
      done
      # gzip members concatenate into one valid gzip file
      for m in 1 2; do
        for h in $(seq 1 "$p"); do cat "$d/work/pe$h.bwa.read$m.fastq.gz"; done > "$d/R$m.fq.gz"
      done
      rm -rf "$d/work"
      reads=("$d/R1.fq.gz" "$d/R2.fq.gz")
      ;;
    hifi)
      [ "$p" = 2 ] || { echo "$set: hifi sets use make-diploid.sh, diploid only" >&2; exit 1; }
      log "$set: make-diploid.sh hifi (HIFI_X=$cov) on these haplotypes"
      mkdir -p "$d/mkd"
      cp "$d/genome/hap1.fa" "$d/mkd/hf_hap1.fa"
      cp "$d/genome/hap2.fa" "$d/mkd/hf_hap2.fa"
      DATA="$d/mkd" NAME=hf HIFI_X="$cov" SEED="$seed" \
        bash "$HERE/make-diploid.sh" hifi > "$d/mkd.log" 2>&1 || { tail "$d/mkd.log" >&2; exit 1; }
      rm -f "$d/mkd/hf_hap1.fa" "$d/mkd/hf_hap2.fa"
      reads=("$d/mkd/hf_hifi.fq.gz")
      ;;
  esac

  log "$set: kmerbloom count -k $K --histo ($(du -ch "${reads[@]}" | tail -1 | cut -f1) of reads)"
  /usr/bin/time -v -o "$d/count.time" "$KMERBLOOM" count "${reads[@]}" -k $K -t "$THREADS" \
    --histo "$d/reads.histo.tmp" -o /dev/null -q
  # truth for the repeats: hap1's own k-mer copy numbers
  "$KMERBLOOM" count "$d/genome/hap1.fa" -k $K -t "$THREADS" --histo "$d/hap1.histo" -o /dev/null -q
  local krep
  krep=$(awk '{ n += $1 * $2; if ($1 >= 2) r += $1 * $2 } END { printf "%.4f", r / n }' "$d/hap1.histo")

  # planted figures
  local rl=150 lam
  [ "$tech" = hifi ] && rl=15000
  lam=$(awk -v c="$cov" -v p="$p" -v L="$rl" -v k=$K -v e="$err" \
    'BEGIN { printf "%.3f", c / p * (L - k + 1) / L * (1 - e) ^ k }')
  local gt=$d/genome.tsv hp rp
  if [ "$tech" = mkd ]; then
    # make-diploid: 1% SNPs plus one 1-10 bp indel per 10 kb; repeats 1-10% diverged
    hp=$(awk -F'\t' '$1 == "het_snps" { s = $2 } $1 == "het_indels" { i = $2 } $1 == "genome_bp" { g = $2 }
      END { printf "%.6f", (s + i) / g }' "$gt")
    rp=$(awk -F'\t' '$1 == "repeat_fraction" { print $2 }' "$gt")
  else
    hp=$(awk -F'\t' '$1 == "het_rate" { print $2 }' "$gt")
    rp=$(awk -F'\t' '$1 == "repeat_fraction" { print $2 }' "$gt")
  fi
  {
    printf 'set\t%s\ntech\t%s\nploidy\t%s\nhaploid_bp\t%s\nhet_rate\t%s\n' "$set" "$tech" "$p" "$g" "$hp"
    printf 'repeat_share_bp\t%s\nrepeat_share_kmers\t%s\ncoverage_total\t%s\n' "$rp" "$krep" "$cov"
    printf 'coverage_per_copy\t%s\n' "$(awk -v c="$cov" -v p="$p" 'BEGIN { printf "%.3f", c / p }')"
    printf 'kmercov_expected\t%s\nerror_rate\t%s\nread_length\t%s\nk\t%s\nseed\t%s\n' "$lam" "$err" "$rl" "$K" "$seed"
    awk -F'\t' '{ print "genome." $1 "\t" $2 }' "$gt"
  } > "$d/planted.tsv"
  mv "$d/reads.histo.tmp" "$d/reads.histo"
  if [ "$KEEP_READS" != 1 ]; then rm -f "$d"/R?.fq.gz "$d"/mkd/*.fq.gz; fi
}

idx=0
while read -r set tech p mbp het rep cov err <&3; do
  idx=$((idx + 1))
  want=0
  for s in "${WANT[@]}"; do [ "$s" = "$set" ] && want=1; done
  [ $want = 1 ] || continue
  d=$ROOT/sets/$set
  if [ "$FORCE" = 1 ] || [ ! -s "$d/reads.histo" ] || [ ! -s "$d/planted.tsv" ]; then
    simulate "$set" "$tech" "$p" "$mbp" "$het" "$rep" "$cov" "$err" "$idx"
  fi
  log "$set: GenomeScope 2.0 -k $K -p $p"
  rm -rf "$d/gs2" "$d/gs2.time"
  timeout "$GS2_TIMEOUT" /usr/bin/time -v -o "$d/gs2.time" Rscript "$ROOT/src/genomescope.R" \
    -i "$d/reads.histo" -o "$d/gs2" -k $K -p "$p" > "$d/gs2.log" 2>&1 || log "$set: genomescope.R exit $?"
  rm -f "$d/profile.json" "$d/profile.time"
  if [ $HAVE_PROFILE = 1 ]; then
    log "$set: kmerbloom profile -k $K --ploidy $p"
    /usr/bin/time -v -o "$d/profile.time" "$KMERBLOOM" profile "$d/reads.histo" -k $K --ploidy "$p" \
      "${PROFILE_JSON[@]}" "$d/profile.json" -o "$d/profile.txt" > "$d/profile.log" 2>&1 ||
      log "$set: kmerbloom profile exit $? ($(head -c 300 "$d/profile.log"))"
  fi
done 3<<< "$MATRIX"

# The table.
python3 - "$ROOT" "$HAVE_PROFILE" "${WANT[@]}" > "$ROOT/results.tsv" << 'EOF'
import json, os, re, sys

root, have_profile, sets = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]


def kv(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            parts = line.rstrip("\n").split("\t", 1)
            if len(parts) == 2:
                out[parts[0]] = parts[1]
    return out


def timing(path):
    """(wall seconds, max RSS MiB) from a /usr/bin/time -v file."""
    if not os.path.exists(path):
        return "", ""
    wall = rss = ""
    for line in open(path):
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            t = line.rsplit(" ", 1)[1].split(":")
            s = 0.0
            for part in t:
                s = s * 60 + float(part)
            wall = f"{s:.1f}"
        elif line.startswith("Maximum resident set size"):
            rss = f"{int(line.rsplit(' ', 1)[1]) / 1024:.0f}"
    return wall, rss


def num(s):
    return float(s.replace(",", "").replace("%", "").replace("bp", "").strip())


def gs2(d):
    """Figures from GenomeScope's summary.txt and model.txt."""
    r = {}
    summ = os.path.join(d, "gs2", "summary.txt")
    if not os.path.exists(summ):
        r["status"] = "no summary.txt"
        return r
    for line in open(summ):
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) < 2:
            continue
        name, vals = cells[0], cells[1:]
        try:
            v = [num(x) for x in vals]
        except ValueError:
            continue
        if name.startswith("Heterozygous"):
            r["het"] = v
        elif name == "Genome Haploid Length":
            r["len"] = v
        elif name == "Genome Repeat Length":
            r["rep"] = v
        elif name == "Genome Unique Length":
            r["uniq"] = v
        elif name.startswith("Model Fit"):
            r["fit"] = v
        elif name == "Read Error Rate":
            r["err"] = v
    model = os.path.join(d, "gs2", "model.txt")
    if os.path.exists(model):
        text = open(model).read()
        if "Failed to converge" in text:
            r["status"] = "failed to converge"
        for p in ("kmercov", "bias", "d"):
            m = re.search(r"^" + p + r"\s+(\S+)\s+(\S+)", text, re.M)
            if m:
                r[p] = float(m.group(1))
    logf = os.path.join(d, "gs2.log")
    if os.path.exists(logf):
        m = re.search(r"Model converged het:(\S+) kcov:(\S+) err:(\S+) model fit:(\S+) len:(\S+)", open(logf).read())
        if m:
            r["het_point"] = float(m.group(1))  # the sum of the fitted rates
    if "len" in r and r["len"][0] < 0:
        r["status"] = "failed to converge"
    return r


KEYS = {  # column: candidate key names in kmerbloom profile's JSON, by preference
    "len": ["genome_length_range", "genome_haploid_length", "haploid_length", "genome_length", "genome_size", "length"],
    "het": ["heterozygosity", "het_rate", "heterozygous", "het"],
    "err": ["error_rate", "read_error_rate", "err"],
    "kcov": ["kmer_coverage", "kmercov", "kcov", "lambda", "coverage"],
    "rep": ["repeat_length", "genome_repeat_length", "repeat"],
    "uniq": ["unique_length", "genome_unique_length", "unique"],
    "fit": ["model_fit", "fit"],
}


def flatten(o, prefix=""):
    out = {}
    if isinstance(o, dict):
        for k, v in o.items():
            out.update(flatten(v, f"{prefix}{k}."))
    elif isinstance(o, list):
        if all(isinstance(x, (int, float)) for x in o) and o:
            out[prefix[:-1]] = o
        else:
            for i, v in enumerate(o):
                out.update(flatten(v, f"{prefix}{i}."))
    else:
        out[prefix[:-1]] = o
    return out


def first_number(v):
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return [float(v)]
    if isinstance(v, list):
        return [float(x) for x in v]
    return None


def profile(d):
    path = os.path.join(d, "profile.json")
    if not os.path.exists(path):
        return {}, ""
    try:
        flat = flatten(json.load(open(path)))
    except Exception as e:  # noqa: BLE001
        return {}, f"profile.json unreadable: {e}"
    r = {}
    used = set()

    def leaf(k):
        return k.split(".")[-1]

    def parent(k):
        parts = k.split(".")
        return parts[-2] if len(parts) >= 2 else None

    for col, names in KEYS.items():
        # by preference: a leaf of exactly that name; an object of that name
        # holding min/max (or avg, value, estimate); then, after every name
        # failed, a leaf whose name contains one
        for name in names:
            for k in flat:
                v = first_number(flat[k])
                if leaf(k) == name and k not in used and v is not None:
                    r[col] = v
                    used.add(k)
                    break
            if col in r:
                break
            kids = {leaf(k): k for k in flat if parent(k) == name and first_number(flat[k]) is not None}
            pick = [kids[x] for x in ("min", "max") if x in kids] or \
                [kids[x] for x in ("avg", "value", "estimate", "mean") if x in kids][:1]
            if pick:
                r[col] = [first_number(flat[k])[0] for k in pick]
                used.update(pick)
                break
        if col not in r:
            for name in names[:-1] if len(names) > 1 else names:
                for k in flat:
                    v = first_number(flat[k])
                    if name in leaf(k) and k not in used and v is not None:
                        r[col] = v
                        used.add(k)
                        break
                if col in r:
                    break
    extra = []
    for k in flat:
        v = first_number(flat[k])
        if k in used or v is None or k in ("k", "ploidy") or k.startswith("genome_length") or \
                re.search(r"seconds|memory|bytes|version", k):
            continue
        extra.append(k + "=" + "-".join(f"{x:.4g}" for x in v))
    return r, " ".join(extra[:12])


def rng(v, scale=1.0, fmt="{:.3f}"):
    if not v:
        return ""
    v = [x * scale for x in v]
    if len(v) == 1 or abs(v[0] - v[-1]) < 1e-12:
        return fmt.format(v[0])
    return fmt.format(min(v[0], v[1])) + "-" + fmt.format(max(v[0], v[1]))


def mid(v):
    return sum(v[:2]) / len(v[:2]) if v else None


def as_rate(v):
    """A heterozygosity or error rate: a fraction, or a percentage when > 1."""
    if not v:
        return v
    return [x / 100 if x > 1 else x for x in v]


head = ["set", "tech", "ploidy", "len_Mbp", "het_%", "rep_bp_%", "rep_kmer_%", "cov_x", "kcov_exp", "err_%",
        "gs2_len_Mbp", "gs2_len_dev_%", "gs2_het_%", "gs2_het_range_%", "gs2_rep_%", "gs2_fit_%", "gs2_err_%", "gs2_kcov",
        "gs2_s", "gs2_MiB",
        "kb_len_Mbp", "kb_len_dev_%", "kb_het_%", "kb_rep_%", "kb_fit_%", "kb_err_%", "kb_kcov", "kb_s", "kb_MiB",
        "note"]
print("\t".join(head))
for s in sets:
    d = os.path.join(root, "sets", s)
    pl = kv(os.path.join(d, "planted.tsv"))
    g = float(pl.get("haploid_bp", "nan"))
    row = [s, pl.get("tech", ""), pl.get("ploidy", ""), f"{g / 1e6:.3f}",
           f"{100 * float(pl.get('het_rate', 'nan')):.3f}",
           f"{100 * float(pl.get('repeat_share_bp', 'nan')):.1f}",
           f"{100 * float(pl.get('repeat_share_kmers', 'nan')):.1f}",
           pl.get("coverage_total", ""), pl.get("kmercov_expected", ""),
           f"{100 * float(pl.get('error_rate', 'nan')):.2f}"]
    notes = []
    r = gs2(d)
    wall, rss = timing(os.path.join(d, "gs2.time"))
    if "status" in r:
        notes.append("GS2 " + r["status"])
    if "len" in r and r["len"][0] >= 0:
        dev = 100 * (mid(r["len"]) - g) / g
        rep = [100 * x / mid(r["len"]) for x in r.get("rep", [])]
        row += [rng(r["len"], 1e-6), f"{dev:+.2f}",
                f"{100 * r['het_point']:.3f}" if "het_point" in r else "",
                rng(r.get("het", [0.0] if pl.get("ploidy") == "1" else [])),
                rng(rep, 1, "{:.1f}"), rng(r.get("fit"), 1, "{:.1f}"), rng(r.get("err")),
                f"{r['kmercov']:.2f}" if "kmercov" in r else "", wall, rss]
    else:
        row += [""] * 8 + [wall, rss]
    if have_profile:
        kb, extra = profile(d)
        kwall, krss = timing(os.path.join(d, "profile.time"))
        if not kb:
            notes.append("kb profile: no JSON")
        ln = kb.get("len")
        dev = f"{100 * (mid(ln) - g) / g:+.2f}" if ln else ""
        rep = ""
        if kb.get("rep") and ln:
            rep = rng([100 * x / mid(ln) for x in kb["rep"]], 1, "{:.1f}")
        row += [rng(ln, 1e-6) if ln else "", dev, rng(as_rate(kb.get("het")), 100),
                rep, rng([100 * x if x <= 1 else x for x in kb.get("fit", [])], 1, "{:.1f}"), rng(as_rate(kb.get("err")), 100),
                rng(kb.get("kcov"), 1, "{:.2f}"), kwall, krss]
        if extra:
            notes.append("kb: " + extra)
    else:
        row += [""] * 9
        notes.append("kb profile: no such subcommand in this binary")
    row.append("; ".join(notes))
    print("\t".join(row))
EOF
cat "$ROOT/results.tsv"
# Each het form's share for the sets of ploidy 3 and up: planted (the sites
# of each form in genome.tsv, over the haploid length), GenomeScope's
# (its summary's form rows, min-max) and kmerbloom's range (het_forms).
python3 - "$ROOT" "${WANT[@]}" > "$ROOT/forms.tsv" << 'EOF'
import json, os, re, sys
root, sets = sys.argv[1], sys.argv[2:]
print("\t".join(["set", "form", "planted_%", "gs2_%", "kb_%"]))
for s in sets:
    d = os.path.join(root, "sets", s)
    kv = {}
    for name in ("planted.tsv", "genome.tsv"):
        path = os.path.join(d, name)
        if os.path.exists(path):
            for line in open(path):
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    kv.setdefault(parts[0], parts[1])
    if int(kv.get("ploidy", "1")) < 3:
        continue
    g = float(kv["haploid_bp"])
    gs2 = {}
    summ = os.path.join(d, "gs2", "summary.txt")
    if os.path.exists(summ):
        for line in open(summ):
            cells = re.split(r"\s{2,}", line.strip())
            if len(cells) >= 3 and re.fullmatch(r"[a-h]+", cells[0]):
                gs2[cells[0]] = "-".join(c.replace("%", "") for c in cells[1:3])
    kb = {}
    path = os.path.join(d, "profile.json")
    if os.path.exists(path):
        forms = json.load(open(path)).get("het_forms") or {}
        for name, (lo, hi) in forms.items():
            kb[name] = f"{100 * lo:.3f}" if hi - lo < 5e-6 else f"{100 * lo:.3f}-{100 * hi:.3f}"
    names = sorted(set(kb) | set(gs2) | {k[5:] for k in kv if k.startswith("form_")})
    for name in names:
        planted = kv.get("form_" + name)
        print("\t".join([s, name, f"{100 * float(planted) / g:.3f}" if planted else "0", gs2.get(name, ""), kb.get(name, "")]))
EOF
cat "$ROOT/forms.tsv"
log "done -> $ROOT/results.tsv ($(du -sh "$ROOT/sets" | cut -f1) in $ROOT/sets)"
