#!/usr/bin/env bash
# Unpacks Debian packages of another release or architecture into a folder,
# without installing anything: a private apt sources list (same mirrors as
# this machine's, another suite and/or architecture), `apt-get download`, then
# `dpkg-deb -x` into the folder. Downloads are cached beside the folder.
#
#   scripts/debian-root.sh ROOT SUITE ARCH PACKAGE...
#   e.g. scripts/debian-root.sh .compat/trixie-amd64 trixie amd64 redis-server redis-tools libc6
#
# ROOT is rebuilt only when the package list changes. Dependencies are not
# resolved: the caller lists every package whose libraries its binaries load.
set -euo pipefail

root=$(realpath -m "$1") suite=$2 arch=$3
shift 3
packages=("$@")
cache=$root.apt
stamp="$suite $arch ${packages[*]}"
if [[ -f $root/.packages && $(<"$root/.packages") == "$stamp" ]]; then
  exit 0
fi

command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
  { echo "debian-root: needs apt-get and dpkg-deb (Debian or Ubuntu)" >&2; exit 1; }

# The mirrors this machine already uses: the archive of its own release and
# its security archive, asked for the other suite instead.
own=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
targets=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Identifier: Packages')
archive=$(awk -v r="$own" '$1 == r { print $2; exit }' <<<"$targets")
security=$(awk -v r="$own-security" '$1 == r { print $2; exit }' <<<"$targets")
if [[ -z $archive ]]; then
  echo "debian-root: no Debian archive for '$own' in this machine's apt sources" >&2
  exit 1
fi

mkdir -p "$cache/lists/partial" "$cache/debs" "$cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
  echo "deb [arch=$arch signed-by=$keyring] $archive $suite main"
  echo "deb [arch=$arch signed-by=$keyring] $archive $suite-updates main"
  [[ -n $security ]] && echo "deb [arch=$arch signed-by=$keyring] $security $suite-security main"
} >"$cache/sources.list"
: >"$cache/status"
apt=(apt-get -q
  -o "Dir::Etc::sourcelist=$cache/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$cache/lists" -o "Dir::State::status=$cache/status"
  -o "Dir::Cache=$cache" -o "Dir::Cache::archives=$cache/archives"
  -o "APT::Architecture=$arch" -o "APT::Architectures=$arch")

echo "debian-root: fetching ${packages[*]} ($suite, $arch)" >&2
# The lists are refreshed once a day: a stale list names files the mirror
# has since replaced. (apt dates the list files by the mirror's clock, hence
# a stamp of our own.)
if [[ -z $(find "$cache/lists/updated" -mtime -1 2>/dev/null) ]]; then
  "${apt[@]}" update >"$cache/update.log" 2>&1 ||
    { echo "debian-root: apt-get update for $suite/$arch failed, see $cache/update.log" >&2; exit 1; }
  touch "$cache/lists/updated"
fi
(cd "$cache/debs" && "${apt[@]}" download "${packages[@]}" >"$cache/download.log" 2>&1) ||
  { echo "debian-root: apt-get download failed, see $cache/download.log" >&2; exit 1; }

rm -rf "$root"
mkdir -p "$root"
shopt -s nullglob
for package in "${packages[@]}"; do
  # Newest download of the package (older versions stay in the cache).
  debs=("$cache/debs/${package}_"*"_${arch}.deb" "$cache/debs/${package}_"*"_all.deb")
  ((${#debs[@]})) || { echo "debian-root: $package was not downloaded" >&2; exit 1; }
  dpkg-deb -x "$(printf '%s\n' "${debs[@]}" | sort -V | tail -1)" "$root"
done
echo "$stamp" >"$root/.packages"
