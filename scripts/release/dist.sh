#!/usr/bin/env bash
# make dist: the release artifacts ops teams download, per architecture:
#   dist/zkit-<version>-linux-<arch>.tar.gz   stripped module, the Functions library
#                                             (zkit.lua), README, LICENSE, CHANGELOG,
#                                             observe/ (exporter script, scrape job,
#                                             alert rules, dashboard)
#   dist/zkit-<version>.lua                   the Functions library alone, for
#                                             servers that refuse modules
#   dist/zkit-<version>-linux-<arch>.debug    its debug symbols (the module's
#                                             .gnu_debuglink names this file)
#   dist/zkit_<version>_<amd64|arm64>.deb     the same module as a Debian package
#                                             (scripts/release/deb.sh: /usr/lib/redis/modules,
#                                             a commented loadmodule snippet,
#                                             /usr/share/zkit/observe)
# each with a .sha256 beside it (`sha256sum -c` format).
#
# The module is linked by cargo-zigbuild against glibc 2.17 symbols, so it
# loads on every glibc Linux from RHEL 7 on. What is missing is installed
# first: cargo-zigbuild (cargo install), zig (the ziglang wheel from PyPI,
# unpacked into ~/.cache/zkit-dist), the Rust aarch64 target (rustup), and
# Debian's aarch64 binutils (apt-get) to split the debug symbols.
# DIST_ARCHES (e.g. x86_64) builds some architectures only.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

zigbuild_version=0.24.1
zig_version=0.14.1
# Outside the work tree: zig names its header folders relative to the current
# directory when they lie below it, and bindgen, which runs in each
# dependency's folder, then cannot find them.
tools=${XDG_CACHE_HOME:-$HOME/.cache}/zkit-dist

version=$(dist_version)
if ! grep -q "^## \[$version\]" CHANGELOG.md; then
  echo "dist: refusing to build $version: CHANGELOG.md has no '## [$version]' section describing it" >&2
  exit 1
fi

if [[ $(cargo-zigbuild --version 2>/dev/null) != "cargo-zigbuild $zigbuild_version" ]]; then
  echo "dist: installing cargo-zigbuild $zigbuild_version with cargo install (about a minute)" >&2
  cargo install -q --locked --version "$zigbuild_version" cargo-zigbuild ||
    { echo "dist: could not install cargo-zigbuild $zigbuild_version" >&2; exit 1; }
fi
zig=$tools/zig-$zig_version/ziglang
if [[ ! -x $zig/zig ]]; then
  echo "dist: fetching zig $zig_version (the ziglang wheel)" >&2
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  command -v unzip >/dev/null || apt_install unzip
  rm -rf "$tools/zig-$zig_version" "$tools/wheel"
  python3 -m pip download -q --no-deps --only-binary=:all: \
    -d "$tools/wheel" "ziglang==$zig_version"
  unzip -q "$tools"/wheel/ziglang-*.whl 'ziglang/*' -d "$tools/zig-$zig_version"
  chmod +x "$zig/zig"
  rm -rf "$tools/wheel"
fi
export PATH=$zig:$PATH
{ command -v readelf >/dev/null && command -v objcopy >/dev/null; } || apt_install binutils
command -v aarch64-linux-gnu-objcopy >/dev/null || apt_install binutils-aarch64-linux-gnu

# The build id ties a crash's module to its debug symbols file.
export RUSTFLAGS="-C link-arg=-Wl,--build-id=sha1"
# Reproducible tarballs: entries dated at the last commit, owned by root.
epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p dist
built=()
for arch in ${DIST_ARCHES:-${dist_arches[@]}}; do
  base=$(dist_base "$version" "$arch")
  name=$(basename "$base")
  rm -f "$base".*
  triple=$arch-unknown-linux-gnu
  if ! rustup target list --installed | grep -qx "$triple"; then
    echo "dist: adding the Rust target $triple with rustup" >&2
    if ! rustup target add "$triple" >/dev/null 2>&1; then
      echo "dist: skipping $arch: rustup could not add the target $triple" >&2
      continue
    fi
  fi
  echo "dist: building $name (cargo zigbuild --target $triple.$dist_glibc)" >&2
  start=$SECONDS
  cargo zigbuild -q --release --target "$triple.$dist_glibc" ||
    { echo "dist: cargo zigbuild failed for $arch (its output is above)" >&2; exit 1; }
  objcopy=objcopy
  [[ $arch == x86_64 ]] || objcopy=$arch-linux-gnu-objcopy

  stage=$staging/$name
  mkdir -p "$stage"
  module=target/$triple/release/libzkit.so
  "$objcopy" --only-keep-debug --compress-debug-sections=zlib "$module" "$base.debug"
  chmod 644 "$base.debug"
  "$objcopy" --strip-all --add-gnu-debuglink="$base.debug" "$module" "$stage/libzkit.so"
  cp functions/zkit.lua README.md LICENSE CHANGELOG.md "$stage/"
  while read -r file; do
    install -D -m 644 "$file" "$stage/$file"
  done < <(dist_observe_files)
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -C "$staging" -cf - "$name" | gzip -9n >"$base.tar.gz"
  deb=$(dist_deb "$version" "$arch")
  rm -f "$deb" "$deb.sha256"
  bash scripts/release/deb.sh "$stage/libzkit.so" "$arch" "$version" "$epoch" "$deb"
  (cd dist && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256" && sha256sum "$name.debug" >"$name.debug.sha256" &&
    sha256sum "$(basename "$deb")" >"$(basename "$deb").sha256")
  echo "dist: $base.tar.gz ($(du -k "$base.tar.gz" | cut -f1) KiB), $deb ($(du -k "$deb" | cut -f1) KiB), $base.debug ($(du -k "$base.debug" | cut -f1) KiB) in $((SECONDS - start)) s" >&2
  built+=("$arch")
done
((${#built[@]})) || { echo "dist: no architecture was built" >&2; exit 1; }
# The Functions library is the same on every architecture (docs/functions.md).
python3 functions/gen.py --check >&2
cp functions/zkit.lua "dist/zkit-$version.lua"
(cd dist && sha256sum "zkit-$version.lua" >"zkit-$version.lua.sha256")
