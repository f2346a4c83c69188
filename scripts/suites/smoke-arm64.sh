#!/usr/bin/env bash
# make smoke-arm64: runs the aarch64 release module in Debian 12's arm64
# redis-server, emulated by qemu-user-static: starts the server, MODULE LOADs
# the module from the tarball, runs one command of each family and checks its
# answer, MODULE UNLOADs it, and prints one pass/fail line.
#
# The arm64 server and the libraries it loads are Debian packages unpacked
# into .compat/debian12-arm64 (scripts/debian-root.sh); it runs through its
# own dynamic loader, so nothing is installed for arm64. `smoke-arm64.sh
# fetch` only fetches them.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

command -v qemu-aarch64-static >/dev/null || apt_install qemu-user-static
command -v redis-cli >/dev/null || bash scripts/ensure-deps.sh

root=$PWD/.compat/debian12-arm64
# redis-server's libraries, and theirs (libsystemd0's).
bash scripts/debian-root.sh "$root" bookworm arm64 redis-server redis-tools libc6 \
  libatomic1 libjemalloc2 liblzf1 libssl3 libsystemd0 \
  libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1 libstdc++6 libgcc-s1
[[ ${1:-} != fetch ]] || exit 0

version=$(dist_version)
work=$(mktemp -d)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
module=$(dist_unpack "$version" aarch64 "$work/release")

fail() {
  echo "smoke-arm64: FAIL: $*" >&2
  [[ -f $work/server.log ]] && tail -5 "$work/server.log" | sed 's/^/smoke-arm64:   server log: /' >&2
  exit 1
}

# A Unix socket: no port to find free, nothing reachable from outside.
socket=$work/redis.sock
qemu-aarch64-static "$root/lib/ld-linux-aarch64.so.1" \
  --library-path "$root/lib/aarch64-linux-gnu:$root/usr/lib/aarch64-linux-gnu" \
  --argv0 redis-server "$root/usr/bin/redis-check-rdb" \
  --port 0 --unixsocket "$socket" --dir "$work" --logfile server.log --save '' \
  --appendonly yes --enable-module-command yes --enable-debug-command yes >/dev/null 2>&1 &
server_pid=$!
cli() { redis-cli -s "$socket" "$@"; }
for _ in $(seq 150); do
  [[ $(cli PING 2>/dev/null) == PONG ]] && break
  kill -0 "$server_pid" 2>/dev/null || fail "the arm64 redis-server exited at startup"
  sleep 0.2
done
[[ $(cli PING 2>/dev/null) == PONG ]] || fail "the arm64 redis-server did not answer PING within 30 s"
server=$(cli INFO server | tr -d '\r' | awk -F: '$1 == "redis_version" { v = $2 } $1 == "arch_bits" { b = $2 } END { print "Redis " v ", " b "-bit" }')
[[ $(cli INFO server | tr -d '\r' | grep '^os:') == *aarch64* ]] ||
  fail "the server under test is not an aarch64 build"

# Runs a command and matches its reply, flattened to one line, against a
# glob pattern.
expect() { # pattern command...
  local want=$1 got
  shift
  got=$(cli "$@" 2>&1 | paste -sd' ')
  # shellcheck disable=SC2053 # the pattern is a glob on purpose
  [[ $got == $want ]] || fail "$* replied '$got', expected '$want'"
}

IFS=. read -r major minor patch <<<"${version%%-*}"
expect OK MODULE LOAD "$module"
expect "name zkit ver $((major * 10000 + minor * 100 + patch)) *" MODULE LIST
[[ $(cli INFO zkit | tr -d '\r') == *"zkit_version:$version"* ]] || fail "INFO zkit does not report version $version"
expect "100 1" RANK.GIFT board alice 100
expect "100 2" RANK.GIFT board bob 100
expect 3 FEED.ADD feed 1 a 2 b 3 c
expect "c 3 b 2 f1:* f1:* 1" FEED.PAGE feed COUNT 2
expect "1 1 0 1" VOTE.CAST score up down item1 alice UP
expect 2 ZADD jobs 1 job1 4102444800000 job2
expect "job1 1" DELAY.POLL jobs COUNT 10
expect "1 1 0 -1" RATE.HIT limit 60000 1
expect "0 1 0 *" RATE.HIT limit 60000 1
expect 2 RECENT.ADD recent CAP 2 ITEMS a b c
expect "c b" ZREVRANGE recent 0 -1
# What the commands replicated (their effects, built on this architecture's
# calling convention) is what the AOF holds: reloaded, it is the same data.
digest=$(cli DEBUG DIGEST)
expect OK DEBUG LOADAOF
[[ $(cli DEBUG DIGEST) == "$digest" ]] ||
  fail "the data reloaded from the AOF (the commands' replicated effects) differs from what they wrote"
expect OK MODULE UNLOAD zkit
expect "*unknown command*" RANK.GET board alice
echo "smoke-arm64: pass: zkit $version (aarch64) loaded into Debian 12's arm64 redis-server ($server) under qemu; RANK, FEED, VOTE, DELAY, RATE, RECENT answered, their AOF reloads to the same data; unloaded" >&2
