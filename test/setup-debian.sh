#!/usr/bin/env bash
# Installs the Debian packages kmerbloom needs, only those missing, then
# configures and builds into ${BUILD_DIR:-build}. Sourced by data/example.sh
# and test/run-all.sh; safe to run again.
#   setup-debian.sh [extra Debian packages...]
set -euo pipefail

KB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$KB_ROOT/build}

KB_BUILD_PACKAGES=(g++ cmake make pkg-config libhts-dev libisal-dev zlib1g-dev libcli11-dev
  libspdlog-dev libfmt-dev nlohmann-json3-dev libgtest-dev)

kb_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "[setup] installing: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# kb_build DIR [cmake options...]
kb_build() {
  local dir=$1; shift
  cmake -S "$KB_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  kb_install "${KB_BUILD_PACKAGES[@]}" "$@"
  kb_build "$BUILD_DIR"
fi
