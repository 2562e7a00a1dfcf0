#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine: installs what is missing,
# builds with warnings as errors, runs every test (unit, command-line,
# conformance, differential against KMC and Jellyfish), fuzzes the reader and
# the filter-file loader for a bounded time (test/fuzz/run.sh), then runs the
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer and the
# threaded tests under ThreadSanitizer.
# Strict mode (CI=true, as .ci/run sets, or KMERBLOOM_STRICT=1): a test that
# skips fails, so everything the tests need is installed here: the oracles
# (KMC, Jellyfish, python3), the Python module's pybind11, numpy and pytest, bgzip (tabix), /usr/bin/time, Chromium,
# Snakemake, MultiQC, setpriv (util-linux; the permission checks run as an
# ordinary user when CI runs as root); each is then run once (kb_check_tools),
# so that one installed but unable to start stops the run here, named.
#   bash test/run-all.sh          (README.md: "Run the tests")
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-debian.sh"

# Installed without recommends: cwltool needs python3-setuptools beside them.
kb_install "${KB_BUILD_PACKAGES[@]}" kmc jellyfish python3 tabix time util-linux chromium snakemake multiqc cwltool \
  python3-setuptools "${KB_PYTHON_PACKAGES[@]}" python3-pytest
kb_check_tools python3 kmc kmc_tools jellyfish bgzip time setpriv chromium snakemake multiqc cwltool
cd "$KB_ROOT"
jobs=$(nproc)
strict=OFF
case "${KMERBLOOM_STRICT:-${CI:-}}" in true | 1 | yes) strict=ON ;; esac
echo "== strict mode (a skipped test fails): $strict" >&2
# The builds, the sanitizer runs and the container image take a few GB; a test
# that then fails on "No space left on device" is the disk, named here first.
for d in "$KB_ROOT" "${TMPDIR:-/tmp}"; do
  free_mb=$(df -Pm "$d" | awk 'NR == 2 { print $4 }')
  echo "== free disk at $d: ${free_mb} MB" >&2
  if [ "${free_mb:-0}" -lt 4096 ]; then echo "warning: under 4 GB free at $d: tests that write may fail for want of space" >&2; fi
done

echo "== release build (-Werror), all tests" >&2
kb_build build -DKMERBLOOM_WERROR=ON -DKMERBLOOM_STRICT_TESTS=$strict
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== fuzzing (libFuzzer, clang): each target for ${FUZZ_SECONDS:-60} s, then the saved crash inputs" >&2
kb_install clang libclang-rt-14-dev
FUZZ_SECONDS=${FUZZ_SECONDS:-60} bash test/fuzz/run.sh

# The sanitizer builds at -O1 with line tables (-g1), as the sanitizers'
# documentation advises: half the compile time of -O2 -g (8.4 against 17.4
# min for this build on 2 cores), 4% more test time, and every report still
# names file and line.
sanitize_build=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
echo "== AddressSanitizer + UndefinedBehaviorSanitizer" >&2
kb_build build-asan -DKMERBLOOM_WERROR=ON -DKMERBLOOM_STRICT_TESTS=$strict -DKMERBLOOM_SANITIZE=address,undefined "${sanitize_build[@]}"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== ThreadSanitizer, threaded tests repeated" >&2
kb_build build-tsan -DKMERBLOOM_WERROR=ON -DKMERBLOOM_STRICT_TESTS=$strict -DKMERBLOOM_SANITIZE=thread "${sanitize_build[@]}"
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -j"$jobs" \
  -R "Concurrent|CountDiff|Threads|Progress|NormalizeFilter|SerialOrder|FilterOpsQuery|MergedRanges|StagedBlocks|CountIndex|SortedCounts|HetmerSearch|cli.test_count" --repeat until-fail:3

echo "== the Snakemake workflow on a single-node SLURM cluster (test/cluster/test_slurm.sh)" >&2
# Installs slurm-wlm, munge, slurmdbd and MariaDB, starts loopback clusters, stops them by pid;
# prints 'skip: REASON' only where it cannot run (not root, no apt-get).
bash test/cluster/test_slurm.sh build/kmerbloom

echo "== the container image (Containerfile) built with podman and run (test/container/test_container.sh)" >&2
# Installs podman, runc and debootstrap; imports a debootstrap Debian 12 as the base
# image when none is there; prints 'skip: REASON' only where it cannot run (not root).
bash test/container/test_container.sh build/kmerbloom
