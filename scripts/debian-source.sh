#!/usr/bin/env bash
# Unpacks the Debian source package of another (or this) release into a
# folder, without touching the machine's apt setup: a private sources list
# with deb-src lines for the mirrors this machine already uses, then
# `apt-get source` (which needs dpkg-dev to unpack).
#
#   scripts/debian-source.sh DEST SUITE PACKAGE
#   e.g. scripts/debian-source.sh .server-suite/src/bookworm bookworm redis
#
# Prints the unpacked source tree's path (DEST/PACKAGE-VERSION). The download
# and lists are cached beside DEST; the tree is unpacked once.
set -euo pipefail

dest=$(realpath -m "$1") suite=$2 package=$3
cache=$dest.apt

command -v apt-get >/dev/null && command -v dpkg-source >/dev/null ||
  { echo "debian-source: needs apt-get and dpkg-source (dpkg-dev)" >&2; exit 1; }

# The mirrors this machine already uses (as scripts/debian-root.sh finds them).
own=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
targets=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Identifier: Packages')
archive=$(awk -v r="$own" '$1 == r { print $2; exit }' <<<"$targets")
security=$(awk -v r="$own-security" '$1 == r { print $2; exit }' <<<"$targets")
if [[ -z $archive ]]; then
  echo "debian-source: no Debian archive for '$own' in this machine's apt sources" >&2
  exit 1
fi

mkdir -p "$cache/lists/partial" "$cache/archives/partial" "$dest"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
  echo "deb-src [signed-by=$keyring] $archive $suite main"
  echo "deb-src [signed-by=$keyring] $archive $suite-updates main"
  [[ -n $security ]] && echo "deb-src [signed-by=$keyring] $security $suite-security main"
} >"$cache/sources.list"
: >"$cache/status"
options=(-o "Dir::Etc::sourcelist=$cache/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$cache/lists" -o "Dir::State::status=$cache/status"
  -o "Dir::Cache=$cache" -o "Dir::Cache::archives=$cache/archives")
apt=(apt-get -q "${options[@]}")

# Lists refreshed once a day (a stale list names files the mirror replaced).
if [[ -z $(find "$cache/lists/updated" -mtime -1 2>/dev/null) ]]; then
  "${apt[@]}" update >"$cache/update.log" 2>&1 ||
    { echo "debian-source: apt-get update for $suite failed, see $cache/update.log" >&2; exit 1; }
  touch "$cache/lists/updated"
fi
version=$(apt-cache "${options[@]}" showsrc "$package" 2>/dev/null |
  awk '/^Version:/ { print $2 }' | sort -V | tail -1 || true)
[[ -n $version ]] || { echo "debian-source: no source package $package in $suite" >&2; exit 1; }
upstream=${version#*:}
upstream=${upstream%-*}
tree=$dest/$package-$upstream
if [[ ! -f $tree/.unpacked ]]; then
  echo "debian-source: fetching $package $version ($suite)" >&2
  rm -rf "$tree"
  if ! (cd "$dest" && "${apt[@]}" source "$package=$version" >"$cache/source.log" 2>&1); then
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
