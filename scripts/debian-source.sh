#!/usr/bin/env bash
# Unpacks the Debian source package of another (or this) release into a
# folder, without touching the machine's apt setup: `apt-get source` (which
# needs dpkg-dev to unpack) with a private sources list of deb-src lines for
# the mirrors this machine already uses (scripts/lib.sh, apt_other).
#
#   scripts/debian-source.sh DEST SUITE PACKAGE
#   e.g. scripts/debian-source.sh .server-suite/src/bookworm bookworm redis
#
# Prints the unpacked source tree's path (DEST/PACKAGE-VERSION). The download
# and lists are cached beside DEST; the tree is unpacked once.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dest=$(realpath -m "$1") suite=$2 package=$3
cache=$dest.apt

command -v dpkg-source >/dev/null || { echo "debian-source: needs dpkg-source (dpkg-dev)" >&2; exit 1; }
mkdir -p "$dest"
apt_other "$cache" "$suite" deb-src
version=$("${apt_other_cache[@]}" showsrc "$package" 2>/dev/null |
  awk '/^Version:/ { print $2 }' | sort -V | tail -1 || true)
[[ -n $version ]] || { echo "debian-source: no source package $package in $suite" >&2; exit 1; }
upstream=${version#*:}
upstream=${upstream%-*}
tree=$dest/$package-$upstream
if [[ ! -f $tree/.unpacked ]]; then
  echo "debian-source: fetching $package $version ($suite)" >&2
  rm -rf "$tree"
  if ! (cd "$dest" && "${apt_other[@]}" source "$package=$version" >"$cache/source.log" 2>&1); then
    # The mirror sometimes serves a release's upstream tarball but not yet
    # the Debian files of its newest revision (404 on the .dsc): then the
    # upstream tarball alone, without Debian's patches.
    orig=$(compgen -G "$dest/${package}_${upstream}.orig.tar.*" | head -1 || true)
    [[ -n $orig ]] ||
      { echo "debian-source: apt-get source failed, see $cache/source.log" >&2; exit 1; }
    echo "debian-source: no Debian files for $version: using $(basename "$orig") unpatched" >&2
    rm -rf "$tree" "$tree.tmp"
    mkdir -p "$tree.tmp"
    tar -xf "$orig" -C "$tree.tmp" --strip-components=1
    mv "$tree.tmp" "$tree"
  fi
  touch "$tree/.unpacked"
fi
echo "$tree"
