#!/usr/bin/env bash
# zkit benchmarks: each zkit command beside the native command it builds on
# and beside the Lua script a user would write instead, measured in one run
# with redis-benchmark on loopback, unpipelined and pipelined.
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
    redis-benchmark -p "$port" -n $((requests / 10 + 1)) -c 1 -r 100000 -q "$@" >/dev/null
    callgrind_control -z "$server_pid" >/dev/null 2>&1
    redis-benchmark -p "$port" -n "$requests" -c 1 -P 1 -r 100000 -q "$@" >/dev/null
    callgrind_control -d "$server_pid" >/dev/null 2>&1
    while (($(find "$data" -name 'callgrind.out.*' | wc -l) == dumps)); do sleep 0.1; done
    sleep 0.2
    awk -v n="$requests" '/^summary:/ { ir = $2 } END { printf "%.0f", n * 1e9 / ir }' \
      "$(ls -t "$data"/callgrind.out.* | head -1)"
    return
  fi
  "${pin_client[@]}" redis-benchmark -p "$port" -n "$requests" -c "$clients" -P "$pipe" \
    -r 100000 --csv "$@" | awk -F'"' 'NR == 2 { print $4 }'
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
