#!/usr/bin/env bash
# The container image (Containerfile) as a pipeline uses it: built with
# podman on a Debian 12 base, then `kmerbloom count` run in it on the example
# reads, its output equal to the binary's on the machine; the runtime image
# holds no compiler and stays small; ps is there for Nextflow.
#   bash test/container/test_container.sh path/to/kmerbloom
# Root only (podman with its storage in /var/lib/containers). With no
# registry to pull debian:bookworm-slim from, the base is a debootstrap
# minbase (test/debian-base.sh) imported as localhost/kmerbloom-base:bookworm.
# podman runs with runc and without default ulimits here (a containers.conf
# of its own, CONTAINERS_CONF), which these machines need.
# Prints 'skip: REASON' where it cannot run (not root, no apt-get); in strict
# mode (CI) that fails.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KB=${1:?usage: test_container.sh path/to/kmerbloom}
. "$HERE/../setup-debian.sh"
. "$HERE/../debian-base.sh"
. "$HERE/../cli/lib.sh"
SRC=$KB_ROOT

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get > /dev/null; then
  skip "the container test needs root and apt-get (podman, debootstrap)"
  finish; exit
fi
kb_install podman runc debootstrap
cat > "$T/containers.conf" << 'CONF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$T/containers.conf

BASE=localhost/kmerbloom-base:bookworm
IMAGE=localhost/kmerbloom:test
if [ -n "${KMERBLOOM_CONTAINER_BASE:-}" ]; then
  BASE=$KMERBLOOM_CONTAINER_BASE
elif ! podman image exists "$BASE"; then
  make_base "${BARE_CACHE:-/var/tmp/kmerbloom-bare}"
  tar -C "${BARE_CACHE:-/var/tmp/kmerbloom-bare}/base" -c . | podman import -q - "$BASE" > /dev/null
fi
check "base image $BASE is there" podman image exists "$BASE"

if podman build -q --build-arg BASE="$BASE" -t "$IMAGE" -f "$SRC/Containerfile" "$SRC" > "$T/build.log" 2>&1; then
  ok "podman build of the Containerfile"
else
  bad "podman build failed: $(tail -20 "$T/build.log")"
  finish; exit
fi

mkdir -p "$T/work"
cp "$SRC/data/example.fq.gz" "$T/work/"
run() { podman run --rm --network none -v "$T/work":/data -w /data "$IMAGE" "$@"; }
run kmerbloom count example.fq.gz -k 21 -o solid.tsv --histo example.histo --stats example.json -q 2> "$T/run.err" ||
  bad "kmerbloom count in the container failed: $(tail -5 "$T/run.err")"
"$KB" count "$SRC/data/example.fq.gz" -k 21 -o "$T/host.tsv" --histo "$T/host.histo" -q
same "k-mers counted in the container equal the machine's binary's" "$T/work/solid.tsv" "$T/host.tsv"
same "histogram likewise" "$T/work/example.histo" "$T/host.histo"
check "statistics and their MultiQC files written by the container's kmerbloom" \
  test -s "$T/work/example.json" -a -s "$T/work/example_mqc.json"
check "--version in the image is the project's" \
  bash -c "podman run --rm --network none '$IMAGE' kmerbloom --version | grep -q 'kmerbloom $(sed -n 's/^project(kmerbloom VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")'"
check "the default command prints the help (exit 0)" bash -c "podman run --rm --network none '$IMAGE' | grep -q count"
check "ps is in the image (Nextflow reads task metrics with it)" podman run --rm --network none "$IMAGE" ps -p 1
check "no compiler in the runtime image" bash -c "! podman run --rm --network none '$IMAGE' sh -c 'command -v g++ || command -v cmake'"
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
base_size=$(podman image inspect --format '{{.Size}}' "$BASE")
# The runtime packages weigh about 106 MB (libhts3 brings libcurl and its TLS
# stack); the build stage's compiler and headers (some 400 MB) must stay out.
check "runtime image adds at most 150 MB to its base ($(( (size - base_size) / 1000000 )) MB)" \
  test $((size - base_size)) -le 150000000
# The Nextflow modules name the image the README tells to build.
for nf in "$SRC"/workflows/nextflow/modules/kmerbloom/*/main.nf; do
  check "$(basename "$(dirname "$nf")") module names the image kmerbloom:$(sed -n 's/^project(kmerbloom VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")" \
    grep -q "container 'kmerbloom:$(sed -n 's/^project(kmerbloom VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")'" "$nf"
done
podman rmi -f "$IMAGE" > /dev/null 2>&1 || true
finish
