#!/usr/bin/env bash
# make dist-check: reads every release artifact `make dist` wrote for the
# version in Cargo.toml and fails unless, for each architecture:
# - both checksums match (tarball and debug symbols file);
# - the tarball holds exactly zkit-<version>-linux-<arch>/, dist_contents and
#   observe/ with every file of the tree's observe/, each identical to it;
# - the module is an ELF shared object for that architecture exporting
#   RedisModule_OnLoad, needing no glibc symbol version above 2.17;
# - it is stripped (no symbol table, no debug sections) and its
#   .gnu_debuglink and build id point at the debug symbols file, which
#   resolves RedisModule_OnLoad to its source line.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

version=$(dist_version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }

# Checks one architecture; prints what is wrong and returns 1 on the first failure.
check() { # arch
  local arch=$1 base name module machine glibc sections onload
  base=$(dist_base "$version" "$arch")
  name=$(basename "$base")
  for file in "$base.tar.gz" "$base.tar.gz.sha256" "$base.debug" "$base.debug.sha256"; do
    [[ -f $file ]] || { echo "$file is missing (make dist)"; return 1; }
  done
  (cd dist && sha256sum --quiet -c "$name.tar.gz.sha256" "$name.debug.sha256" >/dev/null 2>&1) ||
    { echo "checksum mismatch ($(cd dist && sha256sum -c "$name.tar.gz.sha256" "$name.debug.sha256" 2>&1 | grep -v ': OK$' | paste -sd' '))"; return 1; }

  local expected listed observe file
  mapfile -t observe < <(dist_observe_files)
  expected=$(printf '%s\n' "$name/" "${dist_contents[@]/#/$name/}" "$name/observe/" "${observe[@]/#/$name/}" | sort)
  listed=$(tar -tzf "$base.tar.gz" | sort)
  [[ $listed == "$expected" ]] ||
    { echo "tarball holds [${listed//$'\n'/ }], want [${expected//$'\n'/ }]"; return 1; }
  for file in "${observe[@]}"; do
    cmp -s <(tar -xzOf "$base.tar.gz" "$name/$file") "$file" || { echo "its $file differs from the tree's"; return 1; }
  done
  grep -q "^## \[$version\]" <(tar -xzOf "$base.tar.gz" "$name/CHANGELOG.md") ||
    { echo "its CHANGELOG.md has no [$version] section"; return 1; }

  module=$(dist_unpack "$version" "$arch" "$work/$arch")
  machine=$(readelf -h "$module" | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }')
  case $arch in
    x86_64) [[ $machine == *X86-64* ]] ;;
    aarch64) [[ $machine == AArch64 ]] ;;
  esac || { echo "the module is built for '$machine'"; return 1; }
  readelf -h "$module" | grep -q 'Type: *DYN' || { echo "the module is not a shared object"; return 1; }
  onload=$(readelf --dyn-syms -W "$module" | awk '$8 == "RedisModule_OnLoad" && $7 != "UND" { print $2 }')
  [[ -n $onload ]] || { echo "the module does not export RedisModule_OnLoad"; return 1; }

  glibc=$(readelf -V -W "$module" | grep -o 'Name: GLIBC_[0-9.]*' | sed 's/Name: GLIBC_//' | sort -V | tail -1)
  [[ -n $glibc ]] || { echo "the module needs no versioned glibc symbol: not linked against glibc?"; return 1; }
  [[ $(printf '%s\n' "$glibc" "$dist_glibc" | sort -V | tail -1) == "$dist_glibc" ]] ||
    { echo "the module needs GLIBC_$glibc, above $dist_glibc"; return 1; }

  sections=$(readelf -S -W "$module")
  ! grep -qE ' \.(symtab|debug_[a-z_]+) ' <<<"$sections" ||
    { echo "the module is not stripped: $(grep -oE '\.(symtab|debug_[a-z_]+)' <<<"$sections" | paste -sd' ')"; return 1; }
  [[ $(readelf -p .gnu_debuglink "$module" 2>/dev/null | awk '/\[ *0\]/ { print $3 }') == "$name.debug" ]] ||
    { echo "the module's .gnu_debuglink does not name $name.debug"; return 1; }
  [[ -n $(build_id "$module") && $(build_id "$module") == $(build_id "$base.debug") ]] ||
    { echo "the build ids of the module and $name.debug differ"; return 1; }
  addr2line -f -e "$base.debug" "0x$onload" | head -1 | grep -qx RedisModule_OnLoad ||
    { echo "$name.debug does not resolve RedisModule_OnLoad"; return 1; }

  echo "ok: highest glibc symbol GLIBC_$glibc, module $(($(stat -c %s "$module") / 1024)) KiB stripped, debug symbols $(($(stat -c %s "$base.debug") / 1024)) KiB, checksums match, ${#dist_contents[@]} files and ${#observe[@]} in observe/ as in the tree"
}

status=0
for arch in "${dist_arches[@]}"; do
  if result=$(check "$arch"); then
    echo "dist-check: zkit-$version-linux-$arch: $result" >&2
  else
    echo "dist-check: zkit-$version-linux-$arch: FAIL: $result" >&2
    status=1
  fi
done
exit $status
