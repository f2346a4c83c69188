#!/usr/bin/env bash
# make upgrade-check: a rolling upgrade from zkit 0.2.0 to this tree on a
# master and its replica, as docs/operating.md says to run it, with writes at
# every step:
#   1. master and replica run 0.2.0; clients send 0.2 syntax;
#   2. the replica restarts with this tree's module: the 0.2 master's effects
#      replicate to it as native commands;
#   3. FAILOVER: the 0.3 replica becomes master, the 0.2 master its replica;
#      clients now send 0.3 syntax, whose effects the 0.2 replica applies;
#   4. the old master restarts with this tree's module.
# After each step both nodes must hold the same data (compared key by key),
# and a 0.2 call whose meaning 0.3 changed must be refused by a 0.3 master.
# The 0.2.0 module is built from this repository's history (the last commit
# of 0.2.0, before the 0.3 grammar; a debug build, see below); this tree's
# is ZKIT_MODULE if set, else the release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
root=$PWD
work=$root/.upgrade
mkdir -p "$work"

step() { printf 'upgrade-check: %s\n' "$*" >&2; }
fail() {
  printf 'upgrade-check: FAIL: %s\n' "$*" >&2
  exit 1
}

# ---- the two modules ----
old_commit=b782e2b28adeab2e297919057f3c9b8a7ef9decb
if [[ ! -f $work/src/Cargo.toml ]] || [[ $(git -C "$work/src" rev-parse HEAD 2>/dev/null) != "$old_commit" ]]; then
  rm -rf "$work/src"
  git worktree prune
  git worktree add --detach "$work/src" "$old_commit" >/dev/null
fi
# A debug build in this tree's target folder, which reuses the dependencies
# `cargo build` compiled (0.2.0 locks the same versions): only zkit itself
# compiles. Under a library name of its own, so it does not replace this
# tree's target/debug/libzkit.so (the server loads any file name).
grep -qx 'name = "zkit_0_2_0"' "$work/src/Cargo.toml" ||
  sed -i 's/^crate-type = \["cdylib"\]$/&\nname = "zkit_0_2_0"/' "$work/src/Cargo.toml"
grep -qx 'name = "zkit_0_2_0"' "$work/src/Cargo.toml" || fail "could not name the 0.2.0 library"
step "building 0.2.0 ($old_commit)"
cargo build -q --lib --manifest-path "$work/src/Cargo.toml" --target-dir "$root/target"
old_module=$root/target/debug/libzkit_0_2_0.so
new_module=$(release_module)
# The version this tree's module reports: major * 10000 + minor * 100 + patch.
new_version=$(dist_version | awk -F. '{ print $1 * 10000 + $2 * 100 + $3 }')

# ---- servers ----
master_port=$(free_port)
replica_port=$(free_port)
[[ $replica_port != "$master_port" ]] || replica_port=$(free_port)
cleanup() {
  for port in "$master_port" "$replica_port"; do
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
}
trap cleanup EXIT

start() { # port module [replicaof-port]
  local dir=$work/node-$1
  mkdir -p "$dir"
  local args=(--port "$1" --bind 127.0.0.1 --dir "$dir" --daemonize yes
    --logfile "$dir/log" --appendonly no --save "" --loadmodule "$2")
  [[ -n ${3:-} ]] && args+=(--replicaof 127.0.0.1 "$3")
  redis-server "${args[@]}"
  wait_until "node $1 answers" redis-cli -p "$1" ping
}

stop() { # port
  redis-cli -p "$1" shutdown nosave >/dev/null 2>&1 || true
  wait_until "node $1 stops" sh -c "! redis-cli -p $1 ping >/dev/null 2>&1"
}

# Polls a command until it succeeds, for up to 60 s.
wait_until() { # what command...
  local what=$1
  shift
  for _ in $(seq 600); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "timed out waiting: $what"
}

cli() { # port words...
  local port=$1
  shift
  redis-cli -p "$port" "$@"
}

# A write that must succeed.
write() { # port words...
  local reply
  reply=$(cli "$@")
  [[ $reply != ERR* && $reply != WRONGTYPE* ]] || fail "${*:2}: $reply"
}

module_version() { # port
  cli "$1" MODULE LIST | awk 'prev == "ver" { print; exit } { prev = $0 }'
}

in_sync() { # master replica
  local offset
  offset=$(cli "$1" INFO replication | awk -F: '/^master_repl_offset/ { print $2 }' | tr -d '\r')
  [[ $(cli "$2" INFO replication | awk -F: '/^slave_repl_offset/ { print $2 }' | tr -d '\r') == "$offset" ]] &&
    cli "$2" INFO replication | grep -q 'master_link_status:up'
}

# Every key, its type, contents and TTL presence, sorted: equal on two nodes
# that hold the same data.
snapshot() { # port
  local port=$1 key kind
  cli "$port" --scan | sort | while IFS= read -r key; do
    kind=$(cli "$port" TYPE "$key")
    printf '%s %s ' "$key" "$kind"
    case $kind in
      zset) cli "$port" ZRANGE "$key" 0 -1 WITHSCORES | paste -sd' ' ;;
      set) cli "$port" SMEMBERS "$key" | sort | paste -sd' ' ;;
      hash) cli "$port" HGETALL "$key" | paste -sd' ' ;;
      *) cli "$port" DUMP "$key" | od -An -tx1 | tr -d ' \n'; echo ;;
    esac
    [[ $(cli "$port" PTTL "$key") -gt 0 ]] && echo " (expires)" || echo
  done
}

same_data() { # what master replica
  wait_until "$1: replica in sync" in_sync "$2" "$3"
  diff <(snapshot "$2") <(snapshot "$3") >"$work/diff" ||
    fail "$1: master and replica differ: $(head -5 "$work/diff")"
  local keys
  keys=$(cli "$2" DBSIZE)
  ((keys > 0)) || fail "$1: no data written"
  step "$1: master and replica hold the same $keys keys"
}

# Writes of every family; `syntax` is 0.2 or 0.3 for the four commands
# whose syntax changed.
writes() { # port syntax round
  local p=$1 syntax=$2 r=$3
  write "$p" RANK.GIFT '{room}:board' "alice" 10
  write "$p" RANK.GIFT '{room}:board' "bob-$r" 5
  write "$p" RANK.SET '{room}:board' "carol" $((r * 3)) GT
  write "$p" FEED.ADD '{feed}' CAP 50 "$r" "post-$r"
  write "$p" VOTE.CAST '{a}:score' '{a}:up' '{a}:down' "article-$r" "voter-$r" UP
  write "$p" ZADD '{jobs}' 0 "task-$r" 4102444800000 "later-$r"
  write "$p" DELAY.POLL '{jobs}' COUNT 1 LEASE '{jobs}:inflight' 60000
  if [[ $syntax == 0.2 ]]; then
    write "$p" RECENT.ADD '{u}:recent' "item-$r" CAP 10 TTL 600
    write "$p" RATE.HIT '{u}:rate' 60000 1000 COST 2
    write "$p" DELAY.ACK '{jobs}:inflight' "task-$r"
  else
    write "$p" RECENT.ADD '{u}:recent' CAP 10 TTL 600 ITEMS "item-$r" CAP
    write "$p" RATE.HIT '{u}:rate' COST 2 60000 1000
    write "$p" DELAY.ACK '{jobs}:inflight' TASKS "task-$r"
  fi
}

rm -rf "$work"/node-*

step "1. master and replica on 0.2.0"
start "$master_port" "$old_module"
start "$replica_port" "$old_module" "$master_port"
[[ $(module_version "$master_port") == 200 ]] || fail "the master does not run 0.2.0"
# 0.2 read COST only after the limits.
refused=$(cli "$master_port" RATE.HIT '{u}:probe' COST 1 60000 10)
[[ $refused == ERR* ]] || fail "the 0.2.0 module took the 0.3 syntax: $refused"
for r in 1 2 3; do writes "$master_port" 0.2 "$r"; done
same_data "0.2 master, 0.2 replica" "$master_port" "$replica_port"

step "2. the replica restarts on this tree"
stop "$replica_port"
start "$replica_port" "$new_module" "$master_port"
[[ $(module_version "$replica_port") == "$new_version" ]] || fail "the replica does not run this tree (version $new_version)"
for r in 4 5 6; do writes "$master_port" 0.2 "$r"; done
same_data "0.2 master, 0.3 replica" "$master_port" "$replica_port"

step "3. FAILOVER: the 0.3 node becomes master"
cli "$master_port" FAILOVER TO 127.0.0.1 "$replica_port" >/dev/null
wait_until "the 0.3 node is master" sh -c "redis-cli -p $replica_port ROLE | head -1 | grep -qx master"
wait_until "the 0.2 node is its replica" sh -c "redis-cli -p $master_port ROLE | head -1 | grep -qx slave"
for r in 7 8 9; do writes "$replica_port" 0.3 "$r"; done
same_data "0.3 master, 0.2 replica" "$replica_port" "$master_port"
refused=$(cli "$replica_port" RECENT.ADD '{u}:recent' alice CAP 3002)
[[ $refused == *"usage: RECENT.ADD key [CAP cap] [TTL seconds] ITEMS member"* ]] ||
  fail "a 0.2 RECENT.ADD was not refused with the 0.3 usage: $refused"

step "4. the old master restarts on this tree"
stop "$master_port"
start "$master_port" "$new_module" "$replica_port"
for r in 10 11 12; do writes "$replica_port" 0.3 "$r"; done
same_data "0.3 master, 0.3 replica" "$replica_port" "$master_port"
step "passed: 0.2.0 -> this tree rolling upgrade, writes at every step, replicas identical"
