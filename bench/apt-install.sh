# apt_install PACKAGE...: installs the Debian packages that are missing (as
# root, or through sudo). Sourced by the bench scripts.
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  [ -n "${APT_UPDATED:-}" ] || { $sudo apt-get update -qq; APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=1200 "${missing[@]}" > /dev/null
}
