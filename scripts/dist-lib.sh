# What a release is, shared by the scripts that build, check and run it
# (sourced, not run). Run from the repository root.

# The architectures a release ships, as Rust and `uname -m` spell them.
dist_arches=(x86_64 aarch64)
# What each tarball holds, under its top folder zkit-<version>-linux-<arch>/.
dist_contents=(libzkit.so README.md LICENSE CHANGELOG.md)
# Oldest glibc the module may need: RHEL/CentOS 7, Amazon Linux 2.
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
