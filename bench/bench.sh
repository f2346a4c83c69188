#!/usr/bin/env bash
# zkit benchmarks: each zkit command beside the native command it builds on
# and beside the Lua script a user would write instead, measured in one run
# with redis-benchmark on loopback, unpipelined and pipelined. Then VOTE.CAST
# beside its script and beside client round trips with MULTI/EXEC, which
# redis-benchmark cannot send, with bench/vote_load.rs.
#
# usage: bench/bench.sh path/to/libzkit.so
# env:   BENCH_REQUESTS (default 200000), BENCH_CLIENTS (50), BENCH_PIPELINE (16),
#        BENCH_ROUNDS (3; the median round is reported), REDIS_SERVER,
#        BENCH_MEASURE: "ops" (default, ops/s) or "instructions": the server runs
#        under valgrind's callgrind and each command is measured as requests per
#        billion server instructions (one client, unpipelined, BENCH_REQUESTS
#        default 2000), which other work on a busy machine does not disturb.
set -euo pipefail

module=${1:?usage: bench/bench.sh path/to/libzkit.so}
requests=${BENCH_REQUESTS:-200000}
clients=${BENCH_CLIENTS:-50}
pipeline=${BENCH_PIPELINE:-16}
rounds=${BENCH_ROUNDS:-3}
server=${REDIS_SERVER:-redis-server}
measure=${BENCH_MEASURE:-ops}
here=$(cd "$(dirname "$0")" && pwd)
pipelines=(1 "$pipeline") unit="ops/s" under_valgrind=() server_args=()
if [[ $measure == instructions ]]; then
  requests=${BENCH_REQUESTS:-2000} rounds=1 pipelines=(1) unit="req/Ginstr"
fi

# The VOTE load generator, built before the server starts.
(cd "$here/.." && cargo bench --quiet --no-run --bench vote_load)

# Server and load generator on different cores when the machine has two.
pin_server=() pin_client=()
if command -v taskset >/dev/null && (($(nproc) >= 2)); then
  pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi

port=$((20000 + RANDOM % 20000))
data=$(mktemp -d)
if [[ $measure == instructions ]]; then
  # Valgrind slows the server ~50x, not its timers: hz 1 keeps the cron's
  # share of each request's instructions small.
  under_valgrind=(valgrind --tool=callgrind --log-file="$data/valgrind.log"
    --callgrind-out-file="$data/callgrind.out")
  server_args=(--hz 1)
fi
"${pin_server[@]}" "${under_valgrind[@]}" "$server" --port "$port" --bind 127.0.0.1 --dir "$data" --save "" \
  --appendonly no --loadmodule "$module" --logfile server.log --daemonize no "${server_args[@]}" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 600); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
cli() { redis-cli -p "$port" "$@"; }

# How many distinct values __rand_int__ takes; a case may change it.
keyspace=100000

# ops/s (or requests per billion server instructions) of one command:
# rps <pipeline> <command words...>
rps() {
  local pipe=$1
  shift
  if [[ $measure == instructions ]]; then
    local dumps
    dumps=$(find "$data" -name 'callgrind.out.*' | wc -l)
    # A warm-up run first, so one-off work (lazy binding, a cron tick after a
    # preload) is not counted.
    redis-benchmark -p "$port" -n $((requests / 10 + 1)) -c 1 -r "$keyspace" -q "$@" >/dev/null
    callgrind_control -z "$server_pid" >/dev/null 2>&1
    redis-benchmark -p "$port" -n "$requests" -c 1 -P 1 -r "$keyspace" -q "$@" >/dev/null
    callgrind_control -d "$server_pid" >/dev/null 2>&1
    while (($(find "$data" -name 'callgrind.out.*' | wc -l) == dumps)); do sleep 0.1; done
    sleep 0.2
    awk -v n="$requests" '/^summary:/ { ir = $2 } END { printf "%.0f", n * 1e9 / ir }' \
      "$(ls -t "$data"/callgrind.out.* | head -1)"
    return
  fi
  "${pin_client[@]}" redis-benchmark -p "$port" -n "$requests" -c "$clients" -P "$pipe" \
    -r "$keyspace" --csv "$@" | awk -F'"' 'NR == 2 { print $4 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

results=()
# compare <title> <setup function> ; then the three commands in arrays
# ZKIT, NATIVE, LUA (LUA's first word is the script file, the rest its args).
compare() {
  local title=$1
  local sha
  sha=$(cli SCRIPT LOAD "$(cat "$here/lua/${LUA[0]}")")
  local lua=(EVALSHA "$sha" "${LUA[@]:1}")
  for pipe in "${pipelines[@]}"; do
    local z=() n=() l=()
    for _ in $(seq "$rounds"); do
      z+=("$(rps "$pipe" "${ZKIT[@]}")")
      n+=("$(rps "$pipe" "${NATIVE[@]}")")
      l+=("$(rps "$pipe" "${lua[@]}")")
    done
    local zm nm lm
    zm=$(printf '%s\n' "${z[@]}" | median)
    nm=$(printf '%s\n' "${n[@]}" | median)
    lm=$(printf '%s\n' "${l[@]}" | median)
    results+=("$(awk -v t="$title" -v p="$pipe" -v z="$zm" -v n="$nm" -v l="$lm" \
      'BEGIN { printf "%-34s %4s %12.0f %12.0f %12.0f %8.2fx %8.2fx", t, p, z, n, l, z / n, z / l }')")
    echo "measured: ${results[-1]}" >&2
  done
}

# ---- cases -----------------------------------------------------------------

# RANK.GIFT vs ZINCRBY vs Lua (ZSCORE + TIME + ZADD + ZREVRANK), 100k members.
ZKIT=(RANK.GIFT bench:rank __rand_int__ 5)
NATIVE=(ZINCRBY bench:zincrby 5 __rand_int__)
LUA=(rank_gift.lua 1 bench:lua __rand_int__ 5)
compare "RANK.GIFT | ZINCRBY | Lua"

# RATE.HIT vs ZADD vs Lua (ZREMRANGEBYSCORE + ZCARD + ZADD + PEXPIRE), one
# log per user over 100k users, 100 hits a minute each: every hit is allowed.
ZKIT=(RATE.HIT bench:rate:__rand_int__ 60000 100)
NATIVE=(ZADD bench:zadd:__rand_int__ __rand_int__ __rand_int__)
LUA=(rate_hit.lua 1 bench:rate:lua:__rand_int__ 60000 100)
compare "RATE.HIT | ZADD | Lua"

# The same on one hot key at its limit: almost every hit is refused.
ZKIT=(RATE.HIT bench:rate:hot 600000 50)
NATIVE=(ZCARD bench:rate:hot)
LUA=(rate_hit.lua 1 bench:rate:hot:lua 600000 50)
compare "RATE.HIT refused | ZCARD | Lua"

# RECENT.ADD vs ZADD vs the seed's Lua (LREM + LPUSH + LTRIM + EXPIRE) on one
# list kept at 60 items, viewing random items out of 100k.
ZKIT=(RECENT.ADD bench:recent __rand_int__ CAP 60 TTL 2592000)
NATIVE=(ZADD bench:recent:zadd __rand_int__ __rand_int__)
LUA=(recent_add.lua 1 bench:recent:lua __rand_int__ 60 2592000)
compare "RECENT.ADD | ZADD | Lua"

# The same against a Lua script on a zset (ZADD + ZREMRANGEBYRANK + EXPIRE).
LUA=(recent_add_zset.lua 1 bench:recent:lua:zset __rand_int__ 60 2592000)
compare "RECENT.ADD | ZADD | Lua zset"

# DELAY.POLL vs ZPOPMIN vs Lua (ZRANGEBYSCORE -inf now LIMIT + ZREM). Every
# call must claim a real task, so each queue is filled beforehand with more
# due tasks than the case polls in all its runs (2 pipelines x rounds x
# requests), scored 1..n like overdue tasks, and checked not to run dry.
fill_queue() {
  local key=$1 n=$2
  cli EVAL "for i = tonumber(ARGV[1]), tonumber(ARGV[2]), 1000 do
      local args = {}
      for j = i, math.min(i + 999, tonumber(ARGV[2])) do
        args[#args + 1] = j; args[#args + 1] = 't' .. j
      end
      redis.call('ZADD', KEYS[1], unpack(args))
    end" 1 "$key" 1 "$n" >/dev/null
}
check_not_dry() {
  local key
  for key in "$@"; do
    (($(cli ZCARD "$key") > 0)) || echo "warning: $key ran dry: the DELAY numbers are void" >&2
  done
}
tasks=$((requests * rounds * 2 + requests))
for key in bench:delay bench:delay:popmin bench:delay:lua \
  bench:lease bench:lease:popmin bench:lease:lua; do
  fill_queue "$key" "$tasks"
done
ZKIT=(DELAY.POLL bench:delay)
NATIVE=(ZPOPMIN bench:delay:popmin)
LUA=(delay_poll.lua 1 bench:delay:lua 1)
compare "DELAY.POLL | ZPOPMIN | Lua"
check_not_dry bench:delay bench:delay:popmin bench:delay:lua

# With a lease: claimed tasks move into an in-flight zset.
ZKIT=(DELAY.POLL bench:lease LEASE bench:lease:held 600000)
NATIVE=(ZPOPMIN bench:lease:popmin)
LUA=(delay_poll.lua 2 bench:lease:lua bench:lease:lua:held 1 600000)
compare "DELAY.POLL LEASE | ZPOPMIN | Lua"
check_not_dry bench:lease bench:lease:popmin bench:lease:lua

# VOTE.CAST vs SADD vs Lua (SISMEMBER x2, SADD, ZINCRBY, SCARD x2): up votes
# on one item from voters drawn out of 10^8, so nearly every vote is a new
# one that writes (repeats and switches are in vote_load below); the bare SADD
# of the voter is the native write a vote cannot do without.
keyspace=100000000
ZKIT=(VOTE.CAST bench:vote:score bench:vote:up bench:vote:down item user:__rand_int__ UP WEIGHT 432 432)
NATIVE=(SADD bench:vote:sadd user:__rand_int__)
LUA=(vote_cast.lua 3 bench:vote:lua-score bench:vote:lua-up bench:vote:lua-down item user:__rand_int__ UP 432 432)
compare "VOTE.CAST | SADD | Lua"
keyspace=100000

# FEED: feeds of 10^3 and 10^6 items "item:<i>" scored i, loaded by a
# server-side loop (1000 members per ZADD).
preload_feed() {
  cli EVAL "for i = 1, tonumber(ARGV[1]), 1000 do
      local args = {}
      for j = i, math.min(i + 999, tonumber(ARGV[1])) do
        args[#args + 1] = j
        args[#args + 1] = 'item:' .. j
      end
      redis.call('ZADD', KEYS[1], unpack(args))
    end
    return redis.call('ZCARD', KEYS[1])" 1 "$1" "$2" >/dev/null
}
preload_feed bench:feed:1k 1000
preload_feed bench:feed:1m 1000000
# Hand the loader's garbage back now rather than during the measurements.
cli MEMORY PURGE >/dev/null

# The first page: FEED.PAGE vs the native range it builds on vs Lua.
for size in 1k 1m; do
  ZKIT=(FEED.PAGE "bench:feed:$size" COUNT 20)
  NATIVE=(ZREVRANGEBYSCORE "bench:feed:$size" +inf -inf WITHSCORES LIMIT 0 20)
  LUA=(feed_page.lua 1 "bench:feed:$size" 20)
  compare "FEED.PAGE COUNT 20 first, $size"
done

# Pull-up from the middle: the cursor of item:500000 (score 500000.0, bits
# 0x411e848000000000) vs the article's score-only query made exclusive.
middle_cursor=f1:411e848000000000:$(printf 'item:500000' | od -An -tx1 | tr -d ' \n')
if [[ $(cli FEED.PAGE bench:feed:1m COUNT 1 OLDER "$middle_cursor" | head -1) != item:499999 ]]; then
  echo "bench: the middle cursor does not point at item:500000" >&2
  exit 1
fi
ZKIT=(FEED.PAGE bench:feed:1m COUNT 20 OLDER "$middle_cursor")
NATIVE=(ZREVRANGEBYSCORE bench:feed:1m "(500000" -inf WITHSCORES LIMIT 0 20)
LUA=(feed_page.lua 1 bench:feed:1m 20 500000 item:500000)
compare "FEED.PAGE COUNT 20 OLDER mid, 1m"

# A capped insert: FEED.ADD CAP vs a bare ZADD vs ZADD+ZCARD+ZREMRANGEBYRANK.
ZKIT=(FEED.ADD bench:feed:capped CAP 1000 __rand_int__ __rand_int__)
NATIVE=(ZADD bench:feed:zadd __rand_int__ __rand_int__)
LUA=(feed_add.lua 1 bench:feed:lua 1000 __rand_int__ __rand_int__)
compare "FEED.ADD CAP 1000 | ZADD | Lua"

# ---- issues 15 and 16: RANK SHARED, SET GT, MGIFT, MGET; DELAY NACK, TOUCH,
# ---- dead letters; RATE with several limits --------------------------------
# preload_zset <key> <members> <format> [score]: <members> members named by
# the Lua format ('m:%012d' gives the names __rand_int__ draws), all scored
# <score>, or without one i % 1000: 1,000 distinct totals, every total a run
# of 100 ties on a board of 100k, as plain integer scores RANK reads as totals.
preload_zset() {
  cli EVAL "for i = 0, tonumber(ARGV[1]) - 1, 1000 do
      local args = {}
      for j = i, math.min(i + 999, tonumber(ARGV[1]) - 1) do
        args[#args + 1] = ARGV[3] or j % 1000
        args[#args + 1] = string.format(ARGV[2], j)
      end
      redis.call('ZADD', KEYS[1], unpack(args))
    end" 1 "$1" "$2" "$3" ${4:+"$4"} >/dev/null
}
preload_board() { preload_zset "$1" 100000 'm:%012d'; }

# Each call with SHARED beside the same call without it, and beside the Lua a
# user would write for competition ranks. Writes go to boards of their own.
preload_board bench:shared
ZKIT=(RANK.GET bench:shared m:__rand_int__ SHARED)
NATIVE=(RANK.GET bench:shared m:__rand_int__)
LUA=(rank_get_shared.lua 1 bench:shared m:__rand_int__)
compare "RANK.GET SHARED | RANK.GET | Lua"
# A page from the middle of the board, inside a run of ties.
ZKIT=(RANK.TOP bench:shared 10 OFFSET 50005 SHARED)
NATIVE=(RANK.TOP bench:shared 10 OFFSET 50005)
LUA=(rank_page_shared.lua 1 bench:shared 10 50005)
compare "RANK.TOP 10 mid SHARED | RANK.TOP | Lua"
ZKIT=(RANK.AROUND bench:shared m:__rand_int__ 5 SHARED)
NATIVE=(RANK.AROUND bench:shared m:__rand_int__ 5)
LUA=(rank_page_shared.lua 1 bench:shared around m:__rand_int__ 5)
compare "RANK.AROUND 5 SHARED | RANK.AROUND | Lua"
ZKIT=(RANK.GIFT bench:shared:gift m:__rand_int__ 5 SHARED)
NATIVE=(RANK.GIFT bench:shared:gift-first-come m:__rand_int__ 5)
LUA=(rank_gift.lua 1 bench:shared:lua m:__rand_int__ 5 shared)
compare "RANK.GIFT SHARED | RANK.GIFT | Lua"

# A best-score board: runs of 500 against bests spread over 0..999, so after
# the first pass most runs do not beat the best and change nothing.
for key in bench:best bench:best:zadd bench:best:lua; do preload_board "$key"; done
ZKIT=(RANK.SET bench:best m:__rand_int__ 500 GT)
NATIVE=(ZADD bench:best:zadd GT 500 m:__rand_int__)
LUA=(rank_set_gt.lua 1 bench:best:lua m:__rand_int__ 500)
compare "RANK.SET GT | ZADD GT | Lua"

# One gift on three boards (day, week, all time) vs one ZINCRBY vs Lua.
ZKIT=(RANK.MGIFT 3 {bench}:day {bench}:week {bench}:all m:__rand_int__ 5)
NATIVE=(ZINCRBY {bench}:zincrby 5 m:__rand_int__)
LUA=(rank_mgift.lua 3 {bench}:lua:day {bench}:lua:week {bench}:lua:all m:__rand_int__ 5)
compare "RANK.MGIFT 3 boards | ZINCRBY | Lua"

# Ten members of the 100k board at once vs ZMSCORE of the same ten vs Lua.
ten=(m:__rand_int__ m:__rand_int__ m:__rand_int__ m:__rand_int__ m:__rand_int__
  m:__rand_int__ m:__rand_int__ m:__rand_int__ m:__rand_int__ m:__rand_int__)
ZKIT=(RANK.MGET bench:shared "${ten[@]}")
NATIVE=(ZMSCORE bench:shared "${ten[@]}")
LUA=(rank_mget.lua 1 bench:shared "${ten[@]}")
compare "RANK.MGET 10 | ZMSCORE | Lua"

# DELAY.NACK and DELAY.TOUCH on 100k tasks "t:<12 digits>" leased for a day.
# Each NACK hands a task back to its own set (a visibility timeout) a day
# later, so every call finds its task still held and moves it.
lease_end=$(($(date +%s%3N) + 86400000))
for key in bench:nack bench:nack:lua bench:touch bench:touch:lua; do
  preload_zset "$key" 100000 't:%012d' "$lease_end"
done
ZKIT=(DELAY.NACK bench:nack bench:nack t:__rand_int__ 86400000)
NATIVE=(ZADD bench:nack:zadd "$lease_end" t:__rand_int__)
LUA=(delay_nack.lua 2 bench:nack:lua bench:nack:lua t:__rand_int__ 86400000)
compare "DELAY.NACK | ZADD | Lua"
ZKIT=(DELAY.TOUCH bench:touch t:__rand_int__ 86400000)
NATIVE=(ZADD bench:touch:zadd "$lease_end" t:__rand_int__)
LUA=(delay_touch.lua 1 bench:touch:lua t:__rand_int__ 86400000)
compare "DELAY.TOUCH | ZADD | Lua"

# A leased poll with dead letters: each claim looks up, leases and counts a
# real task (queues filled as for DELAY.POLL above, checked not to run dry).
due_tasks=$((requests * rounds * 2 + requests))
for key in bench:dl bench:dl:popmin bench:dl:lua; do preload_zset "$key" "$due_tasks" 't:%d' 1; done
ZKIT=(DELAY.POLL bench:dl LEASE bench:dl:held 600000 DEADLETTER bench:dl:dead bench:dl:n 3)
NATIVE=(ZPOPMIN bench:dl:popmin)
LUA=(delay_poll.lua 4 bench:dl:lua bench:dl:lua:held bench:dl:lua:dead bench:dl:lua:n 1 600000 3)
compare "DELAY.POLL DEADLETTER | ZPOPMIN | Lua"
for key in bench:dl bench:dl:popmin bench:dl:lua; do
  (($(cli ZCARD "$key") > 0)) || echo "warning: $key ran dry: its numbers are void" >&2
done

# RATE.HIT with two limits (100 a minute, 1,000 a day), one log per user over
# 100k users: every hit is allowed.
ZKIT=(RATE.HIT bench:rate2:__rand_int__ 60000 100 86400000 1000)
NATIVE=(ZADD bench:rate2:zadd:__rand_int__ __rand_int__ __rand_int__)
LUA=(rate_hit_limits.lua 1 bench:rate2:lua:__rand_int__ 60000 100 86400000 1000)
compare "RATE.HIT 2 limits | ZADD | Lua"

# ---- report ----------------------------------------------------------------

server_version=$(cli INFO server | awk -F: '/^redis_version/ { sub("\r", "", $2); print $2 }')
echo
if [[ $measure == instructions ]]; then
  echo "zkit benchmarks: redis-server $server_version under callgrind, $requests requests, 1 client, server instructions"
else
  echo "zkit benchmarks: redis-server $server_version, $requests requests x $rounds rounds (median), $clients clients, loopback"
fi
printf '%-34s %4s %12s %12s %12s %9s %9s\n' "zkit | native | lua" pipe "zkit $unit" "native" "lua" "vs native" "vs lua"
printf '%s\n' "${results[@]}"

# VOTE.CAST vs its Lua script vs round trips with MULTI/EXEC: a mixed
# workload of new votes, repeats, switches and clears, on a database of its
# own (db 9), from a Rust client (bench/vote_load.rs).
echo
(cd "$here/.." && "${pin_client[@]}" cargo bench --quiet --bench vote_load -- --port "$port" \
  --requests "$requests" --connections "$clients" --pipeline "$pipeline" --rounds "$rounds")
