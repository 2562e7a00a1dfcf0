#!/usr/bin/env bash
# Installs the Debian packages kmerbloom needs, only those missing, then
# configures and builds into ${BUILD_DIR:-build}. Sourced by data/example.sh
# and test/run-all.sh; safe to run again.
#   setup-debian.sh [extra Debian packages...]
set -euo pipefail

KB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$KB_ROOT/build}

KB_BUILD_PACKAGES=(g++ cmake make pkg-config libhts-dev libisal-dev libgsl-dev zlib1g-dev libcli11-dev
  libspdlog-dev libfmt-dev nlohmann-json3-dev libgtest-dev)
# The Python module (src/python/): built when these are there (docs/python.md).
KB_PYTHON_PACKAGES=(python3-dev pybind11-dev python3-numpy)

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

# kb_check_tools TOOL...: each tool the tests use must run, not merely be
# installed (a package installed without its recommends may lack what the
# tool imports): its cheapest real invocation must succeed, else one error
# line per tool naming it and the end of its output; returns non-zero then.
kb_check_tools() {
  local tmp tool out failed=()
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-tools.XXXXXX")
  for tool in "$@"; do
    local cmd=() made=""
    case $tool in
      # the modules test/cli/*.sh and test/cluster/*.sh import (standard library only)
      python3) cmd=(python3 -c "import argparse, csv, json, math, os, pathlib, random, re, shlex, struct, subprocess, sys, time, zlib, xml.etree.ElementTree") ;;
      kmc | kmc_tools) cmd=("$tool") ;;  # usage, exit 0
      time) cmd=(/usr/bin/time -f %M -o "$tmp/rss" true) made=$tmp/rss ;;
      setpriv) # as cli/lib.sh's as_user runs it, when root
        if [ "$(id -u)" -eq 0 ]; then cmd=(setpriv --reuid=65534 --regid=65534 --clear-groups -- true); else cmd=(setpriv --help); fi ;;
      chromium) # test_report.sh renders a page: a headless screenshot, chromium exits 0 also without one
        cmd=(timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile"
          --screenshot="$tmp/shot.png" --window-size=200,100 "data:text/html,<p>kmerbloom</p>") made=$tmp/shot.png ;;
      slurmctld | slurmd) cmd=("$tool" -V) ;;
      *) cmd=("$tool" --version) ;;
    esac
    if ! out=$(cd "$tmp" && "${cmd[@]}" 2>&1 < /dev/null) || { [ -n "$made" ] && [ ! -s "$made" ]; }; then
      echo "[setup] error: $tool does not run: '${cmd[*]}' failed: $(tail -5 <<< "$out")" >&2
      failed+=("$tool")
    fi
  done
  rm -rf "$tmp"
  [ ${#failed[@]} -eq 0 ] || { echo "[setup] error: these tools do not run: ${failed[*]}" >&2; return 1; }
}

# kb_build DIR [cmake options...]
kb_configure() {
  local dir=$1; shift
  cmake -S "$KB_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
}

kb_build() {
  local dir=$1; shift
  kb_configure "$dir" "$@"
  cmake --build "$dir" -j"$(nproc)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  kb_install "${KB_BUILD_PACKAGES[@]}" "$@"
  kb_build "$BUILD_DIR"
fi
