#!/usr/bin/env python3
"""Submits one Snakemake job script to SLURM; prints the SLURM job id.

Snakemake calls `submit.py JOBSCRIPT` (profile key `cluster`). The job's
threads and resources come from the script's `# properties = {...}` line:
threads -> --cpus-per-task, mem_mb -> --mem, runtime (minutes) -> --time,
slurm_partition / slurm_account -> --partition / --account (else the
environment's SBATCH_PARTITION / SBATCH_ACCOUNT, which sbatch reads itself,
else the cluster's defaults), slurm_extra -> more sbatch options.
"""
import json
import os
import shlex
import subprocess
import sys


def fail(message):
    sys.exit(f"kmerbloom SLURM profile: {message}")


def job_properties(jobscript):
    with open(jobscript) as f:
        for line in f:
            if line.startswith("# properties = "):
                return json.loads(line[len("# properties = "):])
    fail(f"{jobscript}: no '# properties = ' line: not a Snakemake job script")


def check_partition(resources):
    """A partition is named, or the cluster has a default one; else say which exist."""
    if resources.get("slurm_partition") or os.environ.get("SBATCH_PARTITION"):
        return
    try:
        names = subprocess.run(["sinfo", "-h", "-o", "%P"], capture_output=True, text=True, check=True,
                               timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError) as e:
        fail(f"cannot list the partitions with sinfo ({e}); set SBATCH_PARTITION")
    if not any(name.endswith("*") for name in names):
        fail("no partition given and the cluster has no default one: export SBATCH_PARTITION=NAME "
             f"(or --set-resources RULE:slurm_partition=NAME); partitions: {' '.join(sorted(set(names))) or 'none'}")


def sbatch_command(props, jobscript):
    resources = props.get("resources", {})
    rule = props.get("rule") or ("group-" + str(props.get("groupid", "job")))
    log_dir = os.path.join(".snakemake", "slurm_logs", rule)
    os.makedirs(log_dir, exist_ok=True)
    wildcards = ".".join(str(v) for v in (props.get("wildcards") or {}).values())
    cmd = ["sbatch", "--parsable", f"--job-name=kmerbloom.{rule}" + (f".{wildcards}" if wildcards else ""),
           f"--output={log_dir}/%j.log", f"--cpus-per-task={props.get('threads', 1)}"]
    if resources.get("mem_mb"):
        cmd.append(f"--mem={int(resources['mem_mb'])}")
    if resources.get("runtime"):
        cmd.append(f"--time={int(resources['runtime'])}")
    check_partition(resources)
    if resources.get("slurm_partition"):
        cmd.append(f"--partition={resources['slurm_partition']}")
    if resources.get("slurm_account"):
        cmd.append(f"--account={resources['slurm_account']}")
    cmd += shlex.split(str(resources.get("slurm_extra", "")))
    return cmd + [jobscript]


def main():
    if len(sys.argv) != 2:
        fail("usage: submit.py JOBSCRIPT (called by snakemake --profile profiles/slurm)")
    jobscript = sys.argv[1]
    cmd = sbatch_command(job_properties(jobscript), jobscript)
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        fail(f"{shlex.join(cmd)}: {e}")
    if run.returncode != 0:
        hint = ""
        if "account" in run.stderr.lower():
            hint = " (export SBATCH_ACCOUNT=NAME or --set-resources RULE:slurm_account=NAME)"
        elif "partition" in run.stderr.lower():
            hint = " (export SBATCH_PARTITION=NAME or --set-resources RULE:slurm_partition=NAME)"
        fail(f"sbatch failed{hint}: {run.stderr.strip()}\n  command: {shlex.join(cmd)}")
    # --parsable prints "jobid" or "jobid;cluster"; status.py and scancel take the id.
    print(run.stdout.strip().split(";")[0])


if __name__ == "__main__":
    main()
