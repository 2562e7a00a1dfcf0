# A bare Debian 12 (bookworm) system made with debootstrap, once, for the
# runs that need a fresh machine: test/bare-debian.sh (a chroot) and
# test/container/test_container.sh (imported as a container base image).
# Sourced after setup-debian.sh (kb_install). Root only.

# apt_uri SUITE: the first URI this machine's apt sources (one-line or deb822) give for SUITE.
apt_uri() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] && awk -v want="$1" '
      function found(u) { if (!done) print u; done = 1 }
      /^[[:space:]]*#/ { next }
      /^deb[[:space:]]/ { sub(/\[[^]]*\][[:space:]]*/, ""); if ($3 == want) found($2); next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == want) suite = 1 }
      /^[[:space:]]*$/ { if (uri != "" && suite) found(uri); uri = ""; suite = 0 }
      END { if (uri != "" && suite) found(uri) }' "$f"
  done | head -1
}

# make_base CACHE: debootstrap once into CACHE/base; later runs copy it. A
# half-made base is never used; runs at once wait for each other (flock).
make_base() {
  local CACHE=$1
  mkdir -p "$CACHE"
  (
  flock 9
  [ -e "$CACHE/base.done" ] && exit 0
  local mirror security
  mirror=${BARE_MIRROR:-$(apt_uri bookworm)}
  mirror=${mirror:-http://deb.debian.org/debian}
  security=$(apt_uri bookworm-security)
  security=${security:-http://deb.debian.org/debian-security}
  kb_install debootstrap
  echo "bare-debian: debootstrap bookworm (minbase) from $mirror into $CACHE/base" >&2
  rm -rf --one-file-system "$CACHE/base"
  nice debootstrap --variant=minbase bookworm "$CACHE/base" "$mirror" > "$CACHE/debootstrap.log" 2>&1 ||
    { tail -20 "$CACHE/debootstrap.log" >&2; echo "bare-debian: error: debootstrap failed ($CACHE/debootstrap.log)" >&2; exit 1; }
  # The sources of a fresh install: release, updates, security; no package lists yet.
  rm -f "$CACHE/base/etc/apt/sources.list"
  cat > "$CACHE/base/etc/apt/sources.list.d/debian.sources" << EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$CACHE/base/var/lib/apt/lists/"* "$CACHE/base/var/cache/apt/archives/"*.deb
  touch "$CACHE/base.done"
  ) 9> "$CACHE/base.lock"
}

