#!/usr/bin/env bash
# Installs what building and testing zkit needs and the machine lacks:
# redis-server, redis-tools (redis-cli, redis-benchmark), and libclang for
# bindgen. On Debian/Ubuntu it uses apt-get; elsewhere it says what to install.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v redis-cli >/dev/null && command -v redis-benchmark >/dev/null || missing+=(redis-tools)

have_libclang() {
  [[ -n "${LIBCLANG_PATH:-}" ]] && return 0
  ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so' && return 0
  compgen -G '/usr/lib/llvm-*/lib/libclang*.so*' >/dev/null && return 0
  compgen -G '/usr/lib/*/libclang*.so*' >/dev/null
}
if ! have_libclang || ! compgen -G '/usr/lib/llvm-*/lib/clang/*/include/stddef.h' >/dev/null; then
  missing+=(libclang)
fi

if ! command -v cargo >/dev/null; then
  echo "zkit: cargo is missing; install Rust from https://rustup.rs" >&2
  exit 1
fi

((${#missing[@]} == 0)) && exit 0

if ! command -v apt-get >/dev/null; then
  cat >&2 <<MSG
zkit: missing ${missing[*]}.
Install a Redis server 7.0 or later with redis-cli and redis-benchmark, and
libclang (clang's shared library and its headers, for bindgen), e.g.:
  Fedora:  dnf install redis clang-devel
  macOS:   brew install redis llvm   (then export LIBCLANG_PATH=\$(brew --prefix llvm)/lib)
  Alpine:  apk add redis clang-dev
MSG
  exit 1
fi

packages=()
for m in "${missing[@]}"; do
  case $m in
    redis-server) packages+=(redis-server) ;;
    redis-tools) packages+=(redis-tools) ;;
    libclang)
      if apt-cache show libclang1-14 >/dev/null 2>&1; then
        packages+=(libclang1-14 libclang-common-14-dev)
      else
        packages+=(libclang-dev)
      fi ;;
  esac
done

apt_install "${packages[@]}"
