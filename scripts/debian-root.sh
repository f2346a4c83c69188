#!/usr/bin/env bash
# Unpacks Debian packages of another release or architecture into a folder,
# without installing anything: `apt-get download` with a private sources list
# (scripts/lib.sh, apt_other: this machine's mirrors, another suite and/or
# architecture), then `dpkg-deb -x` into the folder. Downloads are cached
# beside the folder.
#
#   scripts/debian-root.sh ROOT SUITE ARCH PACKAGE...
#   e.g. scripts/debian-root.sh .compat/trixie-amd64 trixie amd64 redis-server redis-tools libc6
#
# ROOT is rebuilt only when the package list changes. Dependencies are not
# resolved: the caller lists every package whose libraries its binaries load.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

root=$(realpath -m "$1") suite=$2 arch=$3
shift 3
packages=("$@")
cache=$root.apt
stamp="$suite $arch ${packages[*]}"
if [[ -f $root/.packages && $(<"$root/.packages") == "$stamp" ]]; then
  exit 0
fi

command -v dpkg-deb >/dev/null || { echo "debian-root: needs dpkg-deb (Debian or Ubuntu)" >&2; exit 1; }
echo "debian-root: fetching ${packages[*]} ($suite, $arch)" >&2
apt_other "$cache" "$suite" deb "$arch"
mkdir -p "$cache/debs"
(cd "$cache/debs" && "${apt_other[@]}" download "${packages[@]}" >"$cache/download.log" 2>&1) ||
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
