#!/usr/bin/env python3
"""Prints the state of one SLURM job for Snakemake: running, success or failed.

Snakemake calls `status.py JOBID` (profile key `cluster-status`) every few
seconds for each job. slurmctld keeps a finished job for MinJobAge (300 s
by default), so scontrol answers without accounting; sacct is asked when
scontrol no longer knows the job. A controller that does not answer is
reported as running (Snakemake asks again) with a warning on stderr.
"""
import re
import subprocess
import sys
import time

RUNNING = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_FED",
           "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD"}


def verdict(state):
    if state == "COMPLETED":
        return "success"
    return "running" if state in RUNNING else "failed"


def ask(cmd):
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return run.returncode, run.stdout, run.stderr
    except (OSError, subprocess.SubprocessError) as e:
        return -1, "", str(e)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: status.py JOBID")
    jobid = sys.argv[1].split(";")[0]
    for attempt in range(3):
        code, out, err = ask(["scontrol", "show", "job", "-o", jobid])
        m = re.search(r"\bJobState=(\w+)", out)
        if code == 0 and m:
            print(verdict(m.group(1)))
            return
        if "Invalid job id" in err:
            code, out, _ = ask(["sacct", "-n", "-X", "-P", "-j", jobid, "-o", "State"])
            states = out.split()
            if code == 0 and states:
                print(verdict(states[0]))
                return
            print(f"status.py: SLURM job {jobid} is unknown to scontrol and sacct (no accounting?): "
                  "taken as failed", file=sys.stderr)
            print("failed")
            return
        time.sleep(2 * (attempt + 1))
    print(f"status.py: scontrol does not answer for job {jobid} ({err.strip()}); asking again later",
          file=sys.stderr)
    print("running")


if __name__ == "__main__":
    main()
