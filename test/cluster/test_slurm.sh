#!/usr/bin/env bash
# The Snakemake workflow on a real SLURM cluster: starts a single-node cluster
# from Debian's slurm-wlm and munge on loopback (slurm-cluster.sh), runs the
# workflow on the bundled example through both SLURM profiles
# (profiles/slurm: sbatch, scontrol/sacct, scancel, on a cluster without
# accounting; profiles/slurm-executor: Snakemake's built-in executor, on a
# second cluster with slurmdbd and MariaDB), compares every output byte for
# byte with a local `snakemake --cores 2` run, checks the message for a
# missing partition and that interrupting a run cancels its jobs, and stops
# every daemon it started, by pid, whatever happens.
#
#   bash test/cluster/test_slurm.sh [path/to/kmerbloom]     (default build/kmerbloom)
#
# Root only (slurmd runs the jobs; packages are installed when missing).
# Prints 'skip: REASON' and exits 0 only when it cannot run at all: not root,
# or no apt-get to install the packages.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "skip: the SLURM test needs root (it starts munged, slurmctld and slurmd, and slurmd runs jobs as root)"
  exit 0
fi
if ! command -v apt-get > /dev/null || ! command -v dpkg-query > /dev/null; then
  echo "skip: the SLURM test installs Debian's slurm-wlm, munge, slurmdbd, MariaDB and snakemake, and there is no apt-get here"
  exit 0
fi
. "$SRC/test/setup-debian.sh"
kb_install slurm-wlm munge snakemake slurmdbd mariadb-server-core mariadb-client-core
# slurmdbd and the client commands (sbatch, sinfo...) do not start without a
# configuration: slurm_start runs them and shows their logs when they fail.
kb_check_tools munged slurmctld slurmd mariadbd mariadb snakemake
. "$HERE/slurm-cluster.sh"

KB=$(cd "$(dirname "${1:-$SRC/build/kmerbloom}")" && pwd)/$(basename "${1:-$SRC/build/kmerbloom}")
[ -x "$KB" ] || { echo "FAIL: no kmerbloom binary at $KB (build first)"; exit 1; }
WF=$SRC/workflows/snakemake
EX=$SRC/data/example.fq.gz
W=$(mktemp -d "${TMPDIR:-/tmp}/kb-slurm.XXXXXX")
chmod 755 "$W"
trap 'slurm_stop; rm -rf "$W"' EXIT
FAILS=0
CHECKS=0
ok() { CHECKS=$((CHECKS + 1)); echo "ok: $*"; }
bad() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL: $*"; }

# The workflow's configuration for every run: one sample in two reads files,
# two partitions and the read filter, so that the cluster runs two bin jobs
# (one per file), two partition counts, their gather and filter jobs.
CONFIG=(kmerbloom="$KB" samples=samples.tsv partitions=2 bins=64 'filter={"enabled": True}')
gzip -dc "$EX" > "$W/ex.fq"
head -n 4000 "$W/ex.fq" | gzip -1 > "$W/ex.0.fq.gz"
tail -n +4001 "$W/ex.fq" > "$W/ex.1.fq"

# run_workflow NAME SECONDS SNAKEMAKE-OPTIONS...: runs the workflow in $W/NAME.
run_workflow() {
  local name=$1 seconds=$2 rc=0 start=$SECONDS
  shift 2
  mkdir -p "$W/$name"
  printf 'sample\treads\nex\t%s,%s\n' "$W/ex.0.fq.gz" "$W/ex.1.fq" > "$W/$name/samples.tsv"
  (cd "$W/$name" && timeout -k 10 "$seconds" snakemake -s "$WF/Snakefile" --configfile "$WF/config.yaml" "$@" \
    --config "${CONFIG[@]}" < /dev/null > snakemake.out 2>&1) || rc=$?
  if [ "$rc" -ne 0 ]; then
    bad "$name: snakemake exited $rc$([ "$rc" -eq 124 ] && echo " (timed out after $seconds s)")"
    tail -30 "$W/$name/snakemake.out"
    for log in "$W/$name"/.snakemake/slurm_logs/*/*.log; do
      [ -e "$log" ] && { echo "--- $log"; tail -10 "$log"; }
    done
    return 1
  fi
  echo "$name: snakemake ran in $((SECONDS - start)) s"
}

# same_results NAME: every output of $W/NAME equals the local run's, byte for
# byte; statistics (which hold times and command lines) key by key.
same_results() {
  local name=$1 a=$W/local/results b=$W/$1/results f n=0
  while IFS= read -r f; do
    n=$((n + 1))
    cmp -s "$a/$f" "$b/$f" || { bad "$name: $f differs from the local run's"; return 0; }
  done < <(cd "$a" && find . -type f ! -path './logs/*' ! -path './benchmarks/*' ! -name '*.json' | sort)
  while IFS= read -r f; do
    n=$((n + 1))
    python3 - "$a/$f" "$b/$f" << 'PY' || { bad "$name: $f differs from the local run's"; return 0; }
import json, sys
# Times, command lines and memory figures (which depend on how the reads were
# split among the threads) vary from run to run; everything else must not.
volatile = {"wall_seconds", "cpu_seconds", "pass_seconds", "peak_memory_bytes", "command_line", "stage_seconds",
            "busy_seconds", "memory_bytes", "sampler_bytes", "threads"}
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in volatile and not k.endswith("_seconds")}
    return [strip(v) for v in x] if isinstance(x, list) else x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:])
if a != b:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)) if isinstance(a, dict) else []
    sys.exit("  keys that differ: " + ", ".join(f"{k}: {a.get(k)!r:.80} vs {b.get(k)!r:.80}" for k in keys))
PY
  done < <(cd "$a" && find . -type f -name '*.json' ! -path './logs/*' | sort)
  # solid k-mers, histogram, statistics, kept reads, summary, 3 MultiQC files at least
  if [ "$n" -ge 8 ]; then ok "$name: all $n outputs equal the local run's"; else bad "$name: only $n outputs compared"; fi
}

echo "== local run (snakemake --cores 2), the reference"
run_workflow local 300 --cores 2 || exit 1

echo "== single-node SLURM cluster on loopback, no accounting"
if ! slurm_start "$W/cluster"; then
  echo "FAIL: the test cluster did not start (logs above)"
  exit 1
fi
ok "slurmctld and slurmd up, node localhost idle ($(sinfo -h -o '%P %c CPUs %m MB'))"

echo "== profiles/slurm: sbatch --parsable, status from scontrol, no accounting"
if run_workflow generic 300 --profile "$WF/profiles/slurm" --latency-wait 5; then
  jobs=$(find "$W/generic/.snakemake/slurm_logs" -name '*.log' | wc -l)
  # 2 bins, 2 partitions, gather, filter: 6 jobs; summary runs locally.
  if [ "$jobs" -eq 6 ]; then ok "generic: the 6 cluster jobs ran under SLURM"; else bad "generic: $jobs SLURM job logs, wanted 6"; fi
  same_results generic
fi

echo "== no partition and no default partition: a clear message at the first submission"
scontrol update PartitionName=debug Default=NO
if env -u SBATCH_PARTITION "$WF/profiles/slurm/submit.py" /dev/null > "$W/nopart.out" 2>&1; then
  bad "submit.py accepted a script without properties"
fi
printf '#!/bin/sh\n# properties = {"rule": "count", "threads": 1, "resources": {"mem_mb": 100}}\ntrue\n' > "$W/job.sh"
if (cd "$W" && env -u SBATCH_PARTITION "$WF/profiles/slurm/submit.py" "$W/job.sh" > "$W/nopart.out" 2>&1); then
  bad "submit.py submitted with no partition and no default partition"
elif grep -q "export SBATCH_PARTITION=NAME.*partitions: debug" "$W/nopart.out"; then
  ok "submit.py names SBATCH_PARTITION and the cluster's partitions"
else
  bad "submit.py without a partition: unclear message: $(cat "$W/nopart.out")"
fi
if id=$(cd "$W" && SBATCH_PARTITION=debug "$WF/profiles/slurm/submit.py" "$W/job.sh" 2> "$W/part.err") &&
   [[ $id =~ ^[0-9]+$ ]]; then
  ok "submit.py with SBATCH_PARTITION submits (job $id)"
else
  bad "submit.py with SBATCH_PARTITION=debug: $(cat "$W/part.err")"
fi
scontrol update PartitionName=debug Default=YES

echo "== interrupted run: its SLURM jobs are cancelled"
# A kmerbloom whose estimate hangs keeps the first job running until Ctrl-C.
printf '#!/bin/sh\n[ "$1" = estimate ] && exec sleep 600\nexec %q "$@"\n' "$KB" > "$W/slow-kmerbloom"
chmod +x "$W/slow-kmerbloom"
mkdir -p "$W/interrupt"
printf 'sample\treads\nex\t%s\n' "$EX" > "$W/interrupt/samples.tsv"
# A background job of a script ignores SIGINT, and so does everything started
# by a shell that was itself started in the background (`cmd &`, nohup,
# test/bare-debian.sh run with &): snakemake gets SIGINT's default back.
(cd "$W/interrupt" && exec env --default-signal=INT snakemake -s "$WF/Snakefile" --configfile "$WF/config.yaml" --profile "$WF/profiles/slurm" \
  --config kmerbloom="$W/slow-kmerbloom" samples=samples.tsv < /dev/null > snakemake.out 2>&1) &
sm=$!
gone() { ! kill -0 "$sm" 2> /dev/null; }
if slurm_wait 60 "the estimate job to run" sh -c '[ "$(squeue -h -t R -o %j)" = kmerbloom.estimate.ex ]'; then
  kill -INT "$sm"
  if slurm_wait 60 "snakemake to stop after Ctrl-C" gone; then
    if slurm_wait 30 "the queue to empty" sh -c '[ -z "$(squeue -h -o %i)" ]'; then
      ok "Ctrl-C on snakemake cancelled its running SLURM job"
    else
      bad "after Ctrl-C the job is still queued: $(squeue)"
    fi
  else
    bad "snakemake did not stop within 60 s of Ctrl-C: $(tail -5 "$W/interrupt/snakemake.out")"
  fi
else
  bad "the estimate job never ran: $(tail -5 "$W/interrupt/snakemake.out")"
fi
gone || { kill -KILL "$sm"; sleep 1; }
wait "$sm" 2> /dev/null || true

slurm_stop

echo "== single-node SLURM cluster with accounting (slurmdbd, MariaDB)"
if ! slurm_start "$W/cluster-acct" accounting; then
  echo "FAIL: the test cluster with accounting did not start (logs above)"
  exit 1
fi
ok "slurmdbd, slurmctld and slurmd up; account kblab holds $(id -un)"
# A past job under the user's default account: were SBATCH_ACCOUNT not read,
# the executor would take that account from sacct and pass it.
(cd "$W" && sbatch --parsable -A "$(id -un)" -o /dev/null --wrap true) > /dev/null
slurm_wait 60 "the job under the default account to end" sh -c '[ -z "$(squeue -h -o %i)" ]' || true

echo "== profiles/slurm-executor: Snakemake's built-in SLURM executor, account from SBATCH_ACCOUNT"
# The executor checks the account with sacctmgr and polls sacct: both need
# slurmdbd. It reads USER, which a CI shell may lack.
if USER=${USER:-$(id -un)} SBATCH_ACCOUNT=kblab run_workflow executor 300 --profile "$WF/profiles/slurm-executor" \
     --latency-wait 5 --max-status-checks-per-second 1; then
  # slurmctld reports a job's end to slurmdbd on its own schedule: the last
  # job may reach sacct a few seconds after snakemake has seen its output.
  completed() { [ "$(sacct -n -X -P -a -A kblab -o State | grep -c '^COMPLETED$')" -eq 6 ]; }
  if slurm_wait 30 "sacct to record the 6 jobs" completed; then
    ok "executor: the 6 cluster jobs ran under account kblab"
  else
    bad "executor: sacct under account kblab: $(sacct -n -X -P -a -A kblab -o JobName,State | tr '\n' ' '), wanted 6 COMPLETED"
  fi
  same_results executor
fi

echo "$CHECKS checks, $FAILS failed"
[ "$FAILS" -eq 0 ]
