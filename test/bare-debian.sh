#!/usr/bin/env bash
# Runs one of the README's two set-up commands in a bare Debian 12 (bookworm)
# chroot holding a clean clone of the committed HEAD, as on a fresh machine:
#   bash test/bare-debian.sh example     runs  bash data/example.sh
#   bash test/bare-debian.sh tests       runs  KMERBLOOM_STRICT=1 bash test/run-all.sh (as .ci/run; hours)
# Run it before a change to what is installed lands. Root only (debootstrap,
# chroot, mounts). The base system (debootstrap --variant=minbase) is made once
# in $BARE_CACHE/base (default /var/tmp/kmerbloom-bare) and copied afresh to
# $BARE_CACHE/MODE for each run; that copy stays until the next run of MODE,
# for a look at its logs and build trees. Debian mirror: the one this
# machine's apt sources use, or $BARE_MIRROR. Prints the command's exit status
# and exits with it.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/setup-debian.sh"
. "$HERE/debian-base.sh"

case "${1:-}" in
  example) CMD="bash data/example.sh" ;;
  tests) CMD="KMERBLOOM_STRICT=1 bash test/run-all.sh" ;;
  *) echo "usage: bash test/bare-debian.sh example|tests" >&2; exit 2 ;;
esac
MODE=$1
[ "$(id -u)" -eq 0 ] || { echo "bare-debian: error: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
CACHE=${BARE_CACHE:-/var/tmp/kmerbloom-bare}
R=$CACHE/$MODE
SRC=/root/kmerbloom  # the clone, where root on a fresh machine would clone it

# release: stop what still runs in the chroot (daemons a test left), then
# unmount everything under it, deepest first.
release() {
  local p m i
  [ -d "$R" ] || return 0
  for i in 1 2; do
    for p in /proc/[0-9]*; do
      [ "$(readlink "$p/root" 2> /dev/null)" = "$R" ] || continue
      kill "-$([ $i -eq 1 ] && echo TERM || echo KILL)" "${p#/proc/}" 2> /dev/null || true
    done
    [ $i -eq 1 ] && sleep 2
  done
  awk -v r="$R" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r |
    while read -r m; do umount "$m" 2> /dev/null || umount -l "$m"; done
}

# bind_in --bind|--rbind DIR: the machine's DIR at the same place in the
# chroot. Mounts and unmounts there must not reach the machine's DIR (shared
# mounts under systemd), so the copy only receives.
bind_in() {
  mount "$1" "$2" "$R$2"
  mount --make-rslave "$R$2" 2> /dev/null || true
}

# The whole run is one function, read before it starts: editing or checking
# out this file during a run of hours cannot change what the run does.
main() {
  make_base "$CACHE"

  local head rc=0
  head=$(git -C "$KB_ROOT" rev-parse HEAD)
  [ -z "$(git -C "$KB_ROOT" status --porcelain)" ] ||
    echo "bare-debian: note: uncommitted changes stay out; the chroot holds the commit $head" >&2
  release
  rm -rf --one-file-system "$R"
  trap release EXIT
  trap "exit 130" INT
  trap "exit 143" TERM HUP
  cp -a "$CACHE/base" "$R"
  git clone -q "$(git -C "$KB_ROOT" rev-parse --path-format=absolute --git-common-dir)" "$R$SRC"
  git -C "$R$SRC" checkout -q --detach "$head"
  cp -L /etc/resolv.conf "$R/etc/resolv.conf"
  # The machine's name as the Debian installer writes it: at 127.0.1.1, not 127.0.0.1.
  uname -n > "$R/etc/hostname"
  printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n' \
    "$(uname -n)" > "$R/etc/hosts"
  # The chroot's / a mount point of its own, as on a machine: podman's storage
  # remounts / private when it unpacks an image, which fails on a plain directory.
  mount --bind "$R" "$R"
  mount --make-private "$R"
  mount -t proc proc "$R/proc"
  bind_in --rbind /sys  # with the cgroup file systems, which slurmd needs
  bind_in --bind /dev
  bind_in --bind /dev/pts
  mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$R/dev/shm"

  echo "bare-debian: $CMD, in $R (commit $head)" >&2
  chroot "$R" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd $SRC && $CMD" || rc=$?
  echo "bare-debian: '$CMD' on bare Debian 12 exited with status $rc" >&2
  return "$rc"
}

main "$@"; exit
