#!/usr/bin/env bash
# make bench: what every zkit command costs at every size, against the native
# commands it replaces and the Lua a user would write, in one run:
#
#   1. sweep    each case at every size of BENCH_SIZES, zkit vs native vs Lua
#               on copies of the same data, rounds interleaved (median);
#   2. tax      native ZADD and SET on a server without zkit vs one where
#               DELAY.BPOLL has been used (nobody waiting, and one waiting);
#   3. latency  p50/p99/p99.9 of each zkit command and its native baseline at
#               a fixed request rate (bench/latency.rs, open loop);
#   4. memory   bytes per member of keys zkit wrote vs the same contents
#               written natively, at 1k and 1M;
#   5. long     how long the O(N) commands hold the server (SLOWLOG);
#   6. vote     VOTE.CAST vs its script vs client round trips (vote_load.rs);
#   7. small    every RANK command on boards of 10-128 members vs native
#               commands on an integer board, zkit 0.2's layout and Lua,
#               before and after DEBUG RELOAD; bytes per member.
#
# Everything lands in .bench/: results.csv (every number), table.md (what
# docs/benchmarks.md shows; `make bench-docs` splices it in) and
# sweep.png (bench/report.py, from the CSV).
#
# usage: bench/bench.sh path/to/libzkit.so
# env:   BENCH_SIZES     (default "10 100 1000 10000 100000 1000000 10000000")
#        BENCH_SECTIONS  (default "sweep tax latency memory long vote small")
#        BENCH_SMALL_SIZES (default "10 50 100 128", the small section's)
#        BENCH_CASES     (default: every case; names as in the table, e.g. "RANK.GIFT")
#        BENCH_REQUESTS  (100000 per measurement), BENCH_ROUNDS (3),
#        BENCH_CLIENTS (50), BENCH_PIPELINE (16),
#        BENCH_RATE (20000 requests/s for latencies), BENCH_LATENCY_SECONDS (5),
#        BENCH_QUICK=1   sizes 100 and 10000, 20000 requests, 1 round, short
#                        latencies, memory at 1k only: a few minutes;
#        BENCH_MEASURE=instructions  the servers run under callgrind and each
#                        rate is requests per billion server instructions
#                        (other load on the machine does not move it);
#                        defaults become 2000 requests, 1 round, sizes up to
#                        10^5, sections sweep and tax;
#        BENCH_PROFILE=1 with instructions: keeps each measurement's callgrind
#                        profile in .bench/profiles/ (callgrind_annotate reads them);
#        BENCH_PERF=1    with ops: records each measurement's server with perf
#                        (clock samples) as .bench/profiles/<case>-<size>-<variant>.perf
#                        (`perf report -i <file> --stdio`: where the time goes,
#                        memory stalls included);
#        BENCH_OUT       where results go (default .bench);
#        REDIS_SERVER    (redis-server).
# A default run takes about 50 minutes on 2 cores (the 10^7 sizes about a
# third of it) and needs about 4 GB of memory.
set -euo pipefail

module=${1:?usage: bench/bench.sh path/to/libzkit.so}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${BENCH_OUT:-$root/.bench}
server=${REDIS_SERVER:-redis-server}
measure=${BENCH_MEASURE:-ops}
quick=${BENCH_QUICK:-0}

sizes="10 100 1000 10000 100000 1000000 10000000"
sections="sweep tax latency memory long vote small"
requests=100000 rounds=3 latency_seconds=5 memory_sizes="1000 1000000"
if ((quick)); then
  sizes="100 10000" requests=20000 rounds=1 latency_seconds=2 memory_sizes=1000
fi
if [[ $measure == instructions ]]; then
  sizes="10 100 1000 10000 100000" sections="sweep tax" requests=2000 rounds=1
  ((quick)) && sizes="100 10000" requests=1000
fi
sizes=${BENCH_SIZES:-$sizes}
sections=${BENCH_SECTIONS:-$sections}
requests=${BENCH_REQUESTS:-$requests}
rounds=${BENCH_ROUNDS:-$rounds}
clients=${BENCH_CLIENTS:-50}
pipeline=${BENCH_PIPELINE:-16}
latency_rate=${BENCH_RATE:-20000}
latency_seconds=${BENCH_LATENCY_SECONDS:-$latency_seconds}
only_cases=${BENCH_CASES:-}

[[ -f $module ]] || { echo "bench: no module at $module (make build)" >&2; exit 1; }
mkdir -p "$out"
rm -rf "$out"/tmp.*
source "$here/lib.sh"
# Servers load a copy: a build during the run cannot change (or crash) them.
cp "$module" "$out/libzkit.so"
module=$out/libzkit.so
trap 'stop_servers; rm -rf "$out"/tmp.*' EXIT
trap 'exit 130' INT TERM

unit="ops/s"
[[ $measure == instructions ]] && unit="req/Ginstr"
echo "section,case,size,variant,value,unit" >"$out/results.csv"
server_version=$("$server" --version | sed -E 's/.* v=([^ ]+) .*/\1/')
progress "zkit bench: $server $server_version, sizes: $sizes; sections: $sections;" \
  "$requests requests x $rounds rounds, $clients clients, pipeline $pipeline, in $unit"

progress "building the load generators (cargo bench --no-run)"
(cd "$root" && cargo bench --quiet --no-run --bench latency --bench vote_load) ||
  fail "could not build bench/latency.rs and bench/vote_load.rs"

wants() { [[ " $sections " == *" $1 "* ]]; }

# ---- 1. the sweep --------------------------------------------------------------
#
# A case is one block: a name, its family, a data builder and its commands.
#   data <size> <key>  builds one copy of the data (the function named in DATA)
#   ZKIT, LUA          command words; LUA starts with the script's file name
#   NATIVE             the native commands it replaces, one string each; the
#                      native rate is theirs combined (their times add up); a
#                      string starting "@<kind> " draws its __rand_int__ from
#                      that keyspace instead of NATIVE_RAND's (see keyspace)
#   RAND               the keyspace of __rand_int__ (default: the size)
#   NATIVE_RAND        the same for the native commands (default: RAND)
#   MAX_SIZE           the largest size the case supports (default: any)
# In the words, {k} is the variant's own key, {n} the size and {mid} the
# cursor FEED_MID set for the middle of a feed.

cases=()
declare -A case_data case_zkit case_native case_lua case_rand case_native_rand case_max
# add_case <name>: records the block's DATA, ZKIT, NATIVE, LUA, RAND,
# NATIVE_RAND, MAX_SIZE.
add_case() {
  local name=$1
  cases+=("$name")
  case_data[$name]=$DATA
  case_zkit[$name]="${ZKIT[*]}"
  case_native[$name]=$(printf '%s\n' "${NATIVE[@]}")
  case_lua[$name]="${LUA[*]}"
  case_rand[$name]=${RAND:-}
  case_native_rand[$name]=${NATIVE_RAND:-${RAND:-}}
  case_max[$name]=${MAX_SIZE:-}
  RAND="" NATIVE_RAND="" MAX_SIZE=""
}

# Boards: rank scores with a fraction (stored as text in a small zset, as
# RANK.GIFT writes them): totals 1..1000, distinct tie-breaks.
data_board() { fill_zset "$port" "$2" "$1" "(i % 1000) + 0.5 + (i % 997) / 2048" "$(member_format m:)"; }
DATA=data_board
ZKIT=(RANK.GIFT {k} m:__rand_int__ 5)
NATIVE=("ZINCRBY {k} 5 m:__rand_int__" "ZREVRANK {k} m:__rand_int__")
LUA=(rank_gift.lua 1 {k} m:__rand_int__ 5)
add_case RANK.GIFT

ZKIT=(RANK.GET {k} m:__rand_int__)
NATIVE=("ZSCORE {k} m:__rand_int__" "ZREVRANK {k} m:__rand_int__")
LUA=(rank_get.lua 1 {k} m:__rand_int__)
add_case RANK.GET

# Feeds: members scored 0..n-1; a page of 20 from the middle.
data_feed() { fill_zset "$port" "$2" "$1" "i" "$(member_format m:)"; }
DATA=data_feed
ZKIT=(FEED.PAGE {k} COUNT 20 OLDER {mid})
NATIVE=("ZREVRANGEBYSCORE {k} ({n2} -inf WITHSCORES LIMIT 0 20")
LUA=(feed_page.lua 1 {k} 20 {n2} {mid_member})
add_case "FEED.PAGE OLDER"

# A capped feed at its cap: each add inserts one item and trims one. The
# native ZADD re-scores an item (a removal and an insertion, at the same
# size: separate native commands cannot add and trim in turn), then ZCARD
# tells the caller whether to trim.
ZKIT=(FEED.ADD {k} CAP {n} __rand_int__ new:__rand_int__)
NATIVE=("ZADD {k} __rand_int__ m:__rand_int__" "ZCARD {k}")
LUA=(feed_add.lua 1 {k} {n} __rand_int__ new:__rand_int__)
RAND=1000000000 NATIVE_RAND=n
add_case "FEED.ADD CAP"

# Votes on items of a score board of n items, voters from the same n: new
# votes first, repeats (which change nothing) as the run goes on.
data_scores() { fill_zset "$port" "$2" "$1" "1000000000 + i" "$(member_format i:)"; }
DATA=data_scores
ZKIT=(VOTE.CAST {k} {k}:up:__rand_int__ {k}:down:__rand_int__ i:__rand_int__ u:__rand_int__ UP WEIGHT 432 432)
NATIVE=("SISMEMBER {k}:up:__rand_int__ u:__rand_int__" "SISMEMBER {k}:down:__rand_int__ u:__rand_int__"
  "SADD {k}:up:__rand_int__ u:__rand_int__" "ZINCRBY {k} 432 i:__rand_int__"
  "SCARD {k}:up:__rand_int__" "SCARD {k}:down:__rand_int__")
LUA=(vote_cast.lua 3 {k} {k}:up:__rand_int__ {k}:down:__rand_int__ i:__rand_int__ u:__rand_int__ UP 432 432)
add_case VOTE.CAST

# Queues: a backlog of n tasks due in the future, plus as many due tasks as
# the case's runs claim (so every poll claims a real task).
data_queue() {
  fill_zset "$port" "$2" "$1" "4000000000000 + i" "$(member_format later:)"
  fill_zset "$port" "$2" "$due_pool" "i" "$(member_format due:)"
}
DATA=data_queue
ZKIT=(DELAY.POLL {k})
NATIVE=("ZPOPMIN {k}")
LUA=(delay_poll.lua 1 {k} 1)
add_case DELAY.POLL

ZKIT=(DELAY.POLL {k} LEASE {k}:held 600000)
NATIVE=("ZPOPMIN {k}")
LUA=(delay_poll.lua 2 {k} {k}:held 1 600000)
add_case "DELAY.POLL LEASE"

# A rate log at its limit n (a window of ~30 years): every hit is refused.
data_rate_log() { fill_zset "$port" "$2" "$1" "1700000000000" "1700000000000-%d"; }
DATA=data_rate_log
ZKIT=(RATE.HIT {k} 1000000000000 {n})
NATIVE=("ZREMRANGEBYSCORE {k} -inf 0" "ZCARD {k}" "ZRANGE {k} 0 0 WITHSCORES")
LUA=(rate_hit.lua 1 {k} 1000000000000 {n})
MAX_SIZE=1000000 # RATE.HIT's largest limit
add_case "RATE.HIT refused"

# A recently-viewed list at its cap n: views of random items out of 2n, so
# half move an item to the front and half add one and trim the oldest. The
# native ZINCRBY moves an item to the front (the highest scores) at the same
# size, as above; the trim then finds nothing beyond the cap.
data_recent() { fill_zset "$port" "$2" "$1" "1700000000000 + i" "$(member_format m:)"; }
DATA=data_recent
ZKIT=(RECENT.ADD {k} CAP {n} TTL 2592000 ITEMS m:__rand_int__)
NATIVE=("ZINCRBY {k} 10000000000000 m:__rand_int__" "ZREMRANGEBYRANK {k} 0 -{n1}" "EXPIRE {k} 2592000")
LUA=(recent_add_zset.lua 1 {k} m:__rand_int__ {n} 2592000)
RAND=2n NATIVE_RAND=n
add_case RECENT.ADD

ZKIT=(RANK.TOP {k} 10 OFFSET {n2})
NATIVE=("ZREVRANGE {k} {n2} {n2_9} WITHSCORES")
LUA=(rank_page.lua 1 {k} 10 {n2})
add_case RANK.TOP

# Competition ranks (SHARED) next to the first-come calls above: the native
# rank of a total is ZCOUNT of the higher totals, here above a random total
# of the board (@totals): a count from one fixed total would walk the same
# cached path every time, which zkit's counts from each member's total do not.
DATA=data_board
ZKIT=(RANK.GET {k} m:__rand_int__ SHARED)
NATIVE=("ZSCORE {k} m:__rand_int__" "@totals ZCOUNT {k} __rand_int__ +inf")
LUA=(rank_get_shared.lua 1 {k} m:__rand_int__)
add_case "RANK.GET SHARED"

ZKIT=(RANK.GIFT {k} m:__rand_int__ 5 SHARED)
NATIVE=("ZINCRBY {k} 5 m:__rand_int__" "@totals ZCOUNT {k} __rand_int__ +inf")
LUA=(rank_gift.lua 1 {k} m:__rand_int__ 5 shared)
add_case "RANK.GIFT SHARED"

ZKIT=(RANK.TOP {k} 10 OFFSET {n2} SHARED)
NATIVE=("ZREVRANGE {k} {n2} {n2_9} WITHSCORES" "ZCOUNT {k} {mid_total} +inf")
LUA=(rank_page_shared.lua 1 {k} 10 {n2})
add_case "RANK.TOP SHARED"

# A best-score board: runs of 500 against bests spread over 1..1000, so after
# the first pass half the runs do not beat the best and change nothing.
ZKIT=(RANK.SET {k} m:__rand_int__ 500 GT)
NATIVE=("ZADD {k} GT 500.5 m:__rand_int__" "ZREVRANK {k} m:__rand_int__")
LUA=(rank_set_gt.lua 1 {k} m:__rand_int__ 500)
add_case "RANK.SET GT"

# One gift on a room's day, week and all-time boards, each of size n.
data_boards() {
  data_board "$1" "$2"
  redis-cli -p "$port" COPY "$2" "$2:week" >/dev/null
  redis-cli -p "$port" COPY "$2" "$2:all" >/dev/null
}
DATA=data_boards
ZKIT=(RANK.MGIFT 3 {k} {k}:week {k}:all m:__rand_int__ 5)
NATIVE=("ZINCRBY {k} 5 m:__rand_int__" "ZREVRANK {k} m:__rand_int__"
  "ZINCRBY {k}:week 5 m:__rand_int__" "ZREVRANK {k}:week m:__rand_int__"
  "ZINCRBY {k}:all 5 m:__rand_int__" "ZREVRANK {k}:all m:__rand_int__")
LUA=(rank_mgift.lua 3 {k} {k}:week {k}:all m:__rand_int__ 5)
add_case "RANK.MGIFT 3 boards"

# Ten members of a board at once.
DATA=data_board
read -ra ten <<<"$(printf 'm:__rand_int__ %.0s' 1 2 3 4 5 6 7 8 9 10)"
ZKIT=(RANK.MGET {k} MEMBERS "${ten[@]}")
NATIVE=("ZMSCORE {k} ${ten[*]}")
for _ in 1 2 3 4 5 6 7 8 9 10; do NATIVE+=("ZREVRANK {k} m:__rand_int__"); done
LUA=(rank_mget.lua 1 {k} "${ten[@]}")
add_case "RANK.MGET 10"

# An in-flight set of n tasks leased until 2096. NACK hands a task back to the
# same set (a visibility timeout) a day later, so every call finds it held.
data_leased() { fill_zset "$port" "$2" "$1" "4000000000000" "$(member_format t:)"; }
DATA=data_leased
ZKIT=(DELAY.NACK {k} {k} t:__rand_int__ 86400000)
NATIVE=("ZSCORE {k} t:__rand_int__" "ZREM {k} t:__rand_int__" "ZADD {k} 4000000000000 t:__rand_int__")
LUA=(delay_nack.lua 2 {k} {k} t:__rand_int__ 86400000)
add_case DELAY.NACK

# The native peer checks the lease and moves it: ZINCRBY -1 moves the task
# (every lease of the set is equal) from a random place to the set's start,
# as TOUCH moves one to the end of the renewed leases; a ZADD XX of the score
# it already has would change nothing.
ZKIT=(DELAY.TOUCH {k} t:__rand_int__ 86400000)
NATIVE=("ZSCORE {k} t:__rand_int__" "ZINCRBY {k} -1 t:__rand_int__")
LUA=(delay_touch.lua 1 {k} t:__rand_int__ 86400000)
add_case DELAY.TOUCH

# A leased poll that counts deliveries and moves a task delivered 3 times to
# a dead-letter set.
DATA=data_queue
ZKIT=(DELAY.POLL {k} LEASE {k}:held 600000 DEADLETTER {k}:dead {k}:deliveries 3)
NATIVE=("ZPOPMIN {k}")
LUA=(delay_poll.lua 4 {k} {k}:held {k}:dead {k}:deliveries 1 600000 3)
add_case "DELAY.POLL DEADLETTER"

# Two limits on one log at its size n (n in ~30 years, n/2 in ~15): every hit
# is refused by both, the second waiting for an entry n/2 deep. The script
# finds it with ZRANGEBYSCORE ... LIMIT offset, which walks the offset: 9,000
# calls/s at 10^5, so 10^6 would take most of an hour and is left out.
DATA=data_rate_log
ZKIT=(RATE.HIT {k} 1000000000000 {n} 500000000000 {n2})
NATIVE=("ZREMRANGEBYSCORE {k} -inf 0" "ZCOUNT {k} 0 +inf" "ZCOUNT {k} 1000000000000 +inf" "ZRANGE {k} 0 0 WITHSCORES")
LUA=(rate_hit_limits.lua 1 {k} 1000000000000 {n} 500000000000 {n2})
MAX_SIZE=100000
add_case "RATE.HIT 2 limits"

# keyspace <RAND of a case> <size>: the range of its random numbers
# (totals: those of data_board, 0 .. min(size, 1000) - 1).
keyspace() {
  case $1 in
    "" | n) echo "$2" ;;
    2n) echo $((2 * $2)) ;;
    totals) echo $(($2 < 1000 ? $2 : 1000)) ;;
    *) echo "$1" ;;
  esac
}

# native_command <NATIVE string> <size> <the case's NATIVE_RAND>: sets
# native_words (the command, without an "@<kind> " prefix) and native_space
# (the keyspace of its __rand_int__: the prefix's kind, else NATIVE_RAND's).
native_command() {
  local spec=$1 kind=$3
  if [[ $spec == @* ]]; then
    kind=${spec%% *} spec=${spec#* }
    kind=${kind#@}
  fi
  native_words=$spec
  native_space=$(keyspace "$kind" "$2")
}

# copy_data <variant key>...: the case's data, built in bench:data (and its
# bench:data:* keys, the boards beside it), copied to each variant's key (and
# its :* keys), then dropped. Every variant works on a COPY: a copy lays its
# members out in order, which at 10^6 members and more is faster to walk than
# the key the builder grew, so the builder's key is nobody's.
copy_data() {
  local keys key variant
  # shellcheck disable=SC2207 # the keys are bench:data:<n>, one word each
  keys=(bench:data $(redis-cli -p "$port" --scan --pattern 'bench:data:*'))
  for variant in "$@"; do
    for key in "${keys[@]}"; do
      redis-cli -p "$port" COPY "$key" "$variant${key#bench:data}" >/dev/null
    done
  done
  redis-cli -p "$port" DEL "${keys[@]}" >/dev/null
}

selected() { [[ -z $only_cases || ",$only_cases," == *",$1,"* ]]; }

# words <template> <key> <size>: the template's words for one variant.
words() {
  local t=$1 key=$2 n=$3
  t=${t//\{k\}/$key}
  t=${t//\{n\}/$n}
  t=${t//\{n1\}/$((n + 1))}
  t=${t//\{n2\}/$((n / 2))}
  t=${t//\{n2_9\}/$((n / 2 + 9))}
  t=${t//\{mid_total\}/$(((n < 1000 ? n : 1000) / 2))}
  t=${t//\{mid_member\}/$(printf 'm:%012d' $((n / 2)))}
  t=${t//\{mid\}/$feed_mid}
  echo "$t"
}

# The FEED cursor of the item in the middle (score n/2, member m:<n/2>):
# f1:<the score's IEEE bits>:<the member in hex>.
feed_cursor() {
  local n=$1
  local bits
  bits=$(python3 -c "import struct,sys; print(struct.pack('>d', float(sys.argv[1])).hex())" $((n / 2)))
  echo "f1:$bits:$(printf 'm:%012d' $((n / 2)) | od -An -tx1 | tr -d ' \n')"
}

run_sweep() {
  port=$(free_port)
  start_server sweep "$port" --loadmodule "$module"
  local name size
  for name in "${cases[@]}"; do
    selected "$name" || continue
    local sha
    local lua_words
    read -ra lua_words <<<"${case_lua[$name]}"
    sha=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$here/lua/${lua_words[0]}")")
    for size in $sizes; do
      if [[ -n ${case_max[$name]} ]] && ((size > case_max[$name])); then continue; fi
      local keyspace
      keyspace=$(keyspace "${case_rand[$name]}" "$size")
      feed_mid=$(feed_cursor "$size")
      due_pool=$((rounds * (requests + requests / 10 + 1) + 1000))
      progress "sweep: $name at $size: building 3 copies of the data"
      redis-cli -p "$port" FLUSHALL >/dev/null
      ${case_data[$name]} "$size" bench:data
      copy_data bench:z bench:n bench:l
      redis-cli -p "$port" MEMORY PURGE >/dev/null 2>&1 || true
      local z=() l=() native_cmds=() n=()
      mapfile -t native_cmds <<<"${case_native[$name]}"
      local r i
      # shellcheck disable=SC2046 # the words are split on purpose
      for r in $(seq "$rounds"); do
        progress "sweep: $name at $size: round $r of $rounds"
        local label=${name// /_}-$size
        profile_label=$label-zkit
        z+=("$(rate "$port" "$keyspace" $(words "${case_zkit[$name]}" bench:z "$size"))")
        for i in "${!native_cmds[@]}"; do
          profile_label=$label-native$i
          native_command "${native_cmds[$i]}" "$size" "${case_native_rand[$name]}"
          n[i]+=" $(rate "$port" "$native_space" $(words "$native_words" bench:n "$size"))"
        done
        profile_label=$label-lua
        l+=("$(rate "$port" "$keyspace" EVALSHA "$sha" $(words "${lua_words[*]:1}" bench:l "$size"))")
        profile_label=
      done
      local zm lm nm per_native=()
      zm=$(printf '%s\n' "${z[@]}" | median)
      lm=$(printf '%s\n' "${l[@]}" | median)
      for i in "${!native_cmds[@]}"; do
        per_native[i]=$(tr ' ' '\n' <<<"${n[$i]}" | grep . | median)
        native_command "${native_cmds[$i]}" "$size" ""
        csv sweep "$name" "$size" "native:${native_words%% *}" "${per_native[$i]}" "$unit"
      done
      nm=$(printf '%s\n' "${per_native[@]}" | combined_rate)
      csv sweep "$name" "$size" zkit "$zm" "$unit"
      csv sweep "$name" "$size" native "$nm" "$unit"
      csv sweep "$name" "$size" lua "$lm" "$unit"
      progress "$(awk -v c="$name" -v s="$size" -v z="$zm" -v n="$nm" -v l="$lm" -v u="$unit" \
        'BEGIN { printf "measured: %-18s %9s  zkit %9.0f  native %9.0f  Lua %9.0f %s  vs native %.2fx  vs Lua %.2fx", c, s, z, n, l, u, z / n, z / l }')"
      if [[ ${case_data[$name]} == data_queue ]] && (($(redis-cli -p "$port" ZCOUNT bench:z -inf 1000000000000) == 0)); then
        echo "warning: the DELAY queue ran dry at $size: its numbers are void" >&2
      fi
    done
  done
  redis-cli -p "$port" FLUSHALL >/dev/null
  stop_servers
}

# ---- 2. the tax on native writes -------------------------------------------

# Native ZADD (re-scoring members of a 10k zset) and SET on three servers:
# without zkit; with zkit after a DELAY.BPOLL that has ended (nobody waits);
# with zkit while a client waits in DELAY.BPOLL on another key.
run_tax() {
  local plain used waiting
  plain=$(free_port 3) used=$((plain + 1)) waiting=$((plain + 2))
  start_server plain "$plain"
  start_server used "$used" --loadmodule "$module"
  start_server waiting "$waiting" --loadmodule "$module"
  redis-cli -p "$used" DELAY.BPOLL bench:nobody 1 >/dev/null
  redis-cli -p "$waiting" DELAY.BPOLL bench:nobody 0 >/dev/null &
  local waiter=$!
  local port
  for port in $plain $used $waiting; do
    fill_zset "$port" bench:tax 10000 "i" "$(member_format m:)"
  done
  local _
  for _ in $(seq 200); do
    redis-cli -p "$waiting" INFO clients | grep -q '^blocked_clients:1' && break
    sleep 0.05
  done
  redis-cli -p "$waiting" INFO clients | grep -q '^blocked_clients:1' ||
    fail "tax: the client waiting in DELAY.BPOLL is not blocked"
  local command
  for command in "ZADD bench:tax __rand_int__ m:__rand_int__" "SET bench:s:__rand_int__ v"; do
    local -A got=()
    local r
    for r in $(seq "$rounds"); do
      progress "tax: ${command%% *}: round $r of $rounds"
      for port in $plain $used $waiting; do
        # shellcheck disable=SC2086 # the words are split on purpose
        got[$port]+=" $(rate "$port" 10000 $command)"
      done
    done
    local p u w
    p=$(tr ' ' '\n' <<<"${got[$plain]}" | grep . | median)
    u=$(tr ' ' '\n' <<<"${got[$used]}" | grep . | median)
    w=$(tr ' ' '\n' <<<"${got[$waiting]}" | grep . | median)
    csv tax "${command%% *}" - without-zkit "$p" "$unit"
    csv tax "${command%% *}" - bpoll-used "$u" "$unit"
    csv tax "${command%% *}" - client-waiting "$w" "$unit"
    progress "$(awk -v c="${command%% *}" -v p="$p" -v u="$u" -v w="$w" -v un="$unit" \
      'BEGIN { printf "measured: %s without zkit %.0f %s; BPOLL used %.2fx; a client waiting %.2fx", c, p, un, u / p, w / p }')"
  done
  kill "$waiter" 2>/dev/null || true
  stop_servers
}

# ---- 3. latencies at a fixed rate --------------------------------------------

latency_size=10000
run_latency() {
  port=$(free_port)
  start_server latency "$port" --loadmodule "$module"
  local name
  for name in "${cases[@]}"; do
    selected "$name" || continue
    local size=$latency_size keyspace
    keyspace=$(keyspace "${case_rand[$name]}" "$size")
    feed_mid=$(feed_cursor "$size")
    due_pool=$((latency_rate * latency_seconds * 2 + 1000))
    redis-cli -p "$port" FLUSHALL >/dev/null
    ${case_data[$name]} "$size" bench:data
    copy_data bench:z bench:n
    native_command "$(head -1 <<<"${case_native[$name]}")" "$size" "${case_native_rand[$name]}"
    local variant words_ space
    for variant in zkit native; do
      if [[ $variant == zkit ]]; then
        words_=$(words "${case_zkit[$name]}" bench:z "$size") space=$keyspace
      else
        words_=$(words "$native_words" bench:n "$size") space=$native_space
      fi
      progress "latency: $name ($variant) at $latency_rate/s for ${latency_seconds}s"
      local result
      # shellcheck disable=SC2086 # the words are split on purpose
      result=$(cd "$root" && "${pin_client[@]}" cargo bench --quiet --bench latency -- --port "$port" \
        --rate "$latency_rate" --seconds "$latency_seconds" --keyspace "$space" -- $words_) ||
        fail "latency: $name ($variant) failed"
      read -r p50 p99 p999 achieved errors <<<"$result"
      ((errors == 0)) || fail "latency: $name ($variant) got $errors error replies"
      csv latency "$name" "$size" "$variant:${words_%% *}:p50" "$p50" us
      csv latency "$name" "$size" "$variant:${words_%% *}:p99" "$p99" us
      csv latency "$name" "$size" "$variant:${words_%% *}:p99.9" "$p999" us
      csv latency "$name" "$size" "$variant:${words_%% *}:rate" "$achieved" req/s
      progress "measured: $name $variant ${words_%% *}: p50 $p50 us, p99 $p99 us, p99.9 $p999 us at $achieved req/s"
    done
  done
  stop_servers
}

# ---- 4. memory ---------------------------------------------------------------

# Each family's key written through zkit commands (in a server-side loop),
# then the same contents written natively into another key; MEMORY USAGE of
# both, per member.
run_memory() {
  port=$(free_port)
  start_server memory "$port" --loadmodule "$module"
  local n family build copy
  for n in $memory_sizes; do
    for family in RANK FEED DELAY RATE RECENT VOTE; do
      redis-cli -p "$port" FLUSHALL >/dev/null
      progress "memory: $family at $n members"
      case $family in
        RANK) build="for i = 1, n do redis.call('RANK.GIFT', 'z', string.format('m:%012d', i), i % 5000) end" ;;
        FEED) build="for s = 1, n, 1000 do local a = {'z'}
              for i = s, math.min(s + 999, n) do a[#a + 1] = i; a[#a + 1] = string.format('m:%012d', i) end
              redis.call('FEED.ADD', unpack(a)) end" ;;
        DELAY) build="for s = 1, n, 1000 do local a = {}
              for i = s, math.min(s + 999, n) do a[#a + 1] = i; a[#a + 1] = string.format('t:%012d', i) end
              redis.call('ZADD', 'q', unpack(a)) end
              while redis.call('EXISTS', 'q') == 1 do redis.call('DELAY.POLL', 'q', 'COUNT', 1000, 'LEASE', 'z', 600000) end" ;;
        RATE) build="redis.call('RATE.HIT', 'z', 'COST', n, 1000000000, n)" ;;
        RECENT) build="for s = 1, n, 1000 do local a = {'z', 'CAP', n, 'ITEMS'}
              for i = s, math.min(s + 999, n) do a[#a + 1] = string.format('m:%012d', i) end
              redis.call('RECENT.ADD', unpack(a)) end" ;;
        VOTE) build="for i = 1, n do redis.call('VOTE.CAST', 'scores', 'z', 'down', 'item', string.format('u:%012d', i), 'UP') end" ;;
      esac
      redis-cli -p "$port" EVAL "local n = tonumber(ARGV[1]) $build" 0 "$n" >/dev/null ||
        fail "memory: could not build the $family key"
      if [[ $family == VOTE ]]; then
        copy="local m = redis.call('SMEMBERS', 'z')
              for s = 1, #m, 1000 do redis.call('SADD', 'native', unpack(m, s, math.min(s + 999, #m))) end"
      else
        copy="local m = redis.call('ZRANGE', 'z', 0, -1, 'WITHSCORES')
              for s = 1, #m, 2000 do local a = {}
                for i = s, math.min(s + 1999, #m), 2 do a[#a + 1] = m[i + 1]; a[#a + 1] = m[i] end
                redis.call('ZADD', 'native', unpack(a)) end"
      fi
      redis-cli -p "$port" EVAL "$copy" 0 >/dev/null || fail "memory: could not copy the $family key"
      local members zkit_bytes native_bytes
      members=$(redis-cli -p "$port" EVAL "return redis.call('TYPE', 'z').ok == 'set' and redis.call('SCARD', 'z') or redis.call('ZCARD', 'z')" 0)
      zkit_bytes=$(redis-cli -p "$port" MEMORY USAGE z SAMPLES 0)
      native_bytes=$(redis-cli -p "$port" MEMORY USAGE native SAMPLES 0)
      csv memory "$family" "$n" zkit "$(awk -v b="$zkit_bytes" -v m="$members" 'BEGIN { printf "%.1f", b / m }')" bytes/member
      csv memory "$family" "$n" native "$(awk -v b="$native_bytes" -v m="$members" 'BEGIN { printf "%.1f", b / m }')" bytes/member
      progress "measured: memory $family at $members members: zkit $zkit_bytes bytes, native $native_bytes bytes"
    done
  done
  redis-cli -p "$port" FLUSHALL >/dev/null
  stop_servers
}

# ---- 5. long commands ------------------------------------------------------

# hold_ms <setup Lua> <command words...>: the median time the command ran
# (SLOWLOG, microseconds to ms) over 3 runs, each on fresh data.
hold_ms() {
  local setup=$1
  shift
  local times=() _
  for _ in 1 2 3; do
    redis-cli -p "$port" EVAL "$setup" 0 >/dev/null || fail "long: setup failed for $1"
    redis-cli -p "$port" SLOWLOG RESET >/dev/null
    redis-cli -p "$port" "$@" >/dev/null || fail "long: $1 failed"
    times+=("$(redis-cli -p "$port" SLOWLOG GET 1 | sed -n 3p)")
  done
  printf '%s\n' "${times[@]}" | median | awk '{ printf "%.1f", $1 / 1000 }'
}

# step_merge <count> <dest> <staging> <sources...>: runs RANK.MERGE ... STEP
# from cursor 0 to its end and prints "<longest step ms> <sum of steps ms>
# <steps> <wall ms> <longest step's CPU ms>". Step times are SLOWLOG's (wall
# time, so on a loaded machine they include the time the server waited for
# a core); the CPU time of each step is the server thread's run time around
# it (/proc schedstat); the wall time includes the client's round trips.
step_merge() {
  local count=$1 dest=$2 staging=$3
  shift 3
  local cursor=0 steps=0 longest=0 sum=0 cpu_longest=0 us reply ran_before ran_after
  local started=$EPOCHREALTIME schedstat=/proc/${server_pid[$port]}/task/${server_pid[$port]}/schedstat
  while :; do
    read -r ran_before _ <"$schedstat"
    reply=$(redis-cli -p "$port" RANK.MERGE "$dest" "$#" "$@" STEP "$count" "$staging" "$cursor") ||
      fail "long: a merge step failed"
    read -r ran_after _ <"$schedstat"
    us=$(redis-cli -p "$port" SLOWLOG GET 1 | sed -n 3p)
    steps=$((steps + 1)) sum=$((sum + us))
    ((us > longest)) && longest=$us
    (((ran_after - ran_before) / 1000 > cpu_longest)) && cpu_longest=$(((ran_after - ran_before) / 1000))
    cursor=$(head -1 <<<"$reply")
    [[ $cursor == m2:* || $cursor == 0 ]] || fail "long: unexpected step reply: $reply"
    [[ $cursor == 0 ]] && break
  done
  awk -v l="$longest" -v s="$sum" -v n="$steps" -v t0="$started" -v t1="$EPOCHREALTIME" -v c="$cpu_longest" \
    'BEGIN { printf "%.1f %.1f %d %.0f %.1f\n", l / 1000, s / 1000, n, (t1 - t0) * 1000, c / 1000 }'
}

# The step count docs/commands.md recommends: steps that stay under ~10 ms.
merge_step_count=500

# merge_holds <members out>: one-shot RANK.MERGE, RANK.MERGE in steps and
# ZUNIONSTORE of two boards that share about half their members; how long
# each holds the server, and the stepped result checked against the
# one-shot's (DEBUG DIGEST-VALUE).
merge_holds() {
  local n=$1
  local size=$(((2 * n + 2) / 3))
  local shared=$((2 * size - n))
  progress "long: merges of two boards of $size members into $n (building them)"
  redis-cli -p "$port" FLUSHALL >/dev/null
  fill_zset "$port" "{m}:a" "$size" "(i % 1000) + 0.5" "$(member_format m:)"
  fill_zset "$port" "{m}:b" "$size" "(i % 1000) + 0.25" "$(member_format m:)" $((size - shared))
  local ms
  ms=$(hold_ms "return redis.call('DEL', '{m}:once')" RANK.MERGE "{m}:once" 2 "{m}:a" "{m}:b")
  csv long "RANK.MERGE one-shot $n members out: hold" "$n" ms "$ms" ms
  progress "measured: RANK.MERGE one-shot into $n members holds the server $ms ms"
  ms=$(hold_ms "return redis.call('DEL', '{m}:union')" ZUNIONSTORE "{m}:union" 2 "{m}:a" "{m}:b")
  csv long "ZUNIONSTORE $n members out: hold" "$n" ms "$ms" ms
  progress "measured: ZUNIONSTORE into $n members holds the server $ms ms"
  local longest sum steps wall cpu
  read -r longest sum steps wall cpu < <(step_merge "$merge_step_count" "{m}:week" "{m}:staging" "{m}:a" "{m}:b")
  [[ -n $cpu ]] || fail "long: the stepped merge into $n members did not end"
  [[ $(redis-cli -p "$port" DEBUG DIGEST-VALUE "{m}:week") == \
    "$(redis-cli -p "$port" DEBUG DIGEST-VALUE "{m}:once")" ]] ||
    fail "long: the stepped merge differs from the one-shot merge"
  csv long "RANK.MERGE STEP $merge_step_count $n members out: longest step" "$n" ms "$longest" ms
  csv long "RANK.MERGE STEP $merge_step_count $n members out: sum of $steps steps" "$n" ms "$sum" ms
  csv long "RANK.MERGE STEP $merge_step_count $n members out: wall time" "$n" ms "$wall" ms
  csv long "RANK.MERGE STEP $merge_step_count $n members out: longest step CPU" "$n" ms "$cpu" ms
  progress "measured: RANK.MERGE STEP $merge_step_count into $n members: $steps steps, the longest" \
    "$longest ms ($cpu ms CPU), $sum ms in all ($wall ms wall time); equal to the one-shot merge"
}

run_long() {
  port=$(free_port)
  start_server long "$port" --loadmodule "$module" --enable-debug-command local
  redis-cli -p "$port" CONFIG SET slowlog-log-slower-than 0 >/dev/null
  local ms
  for n in 10000 100000 1000000; do merge_holds "$n"; done

  progress "long: two boards of 500k members merged in steps"
  redis-cli -p "$port" FLUSHALL >/dev/null
  fill_zset "$port" "{m}:a" 500000 "(i % 1000) + 0.5" "$(member_format m:)"
  fill_zset "$port" "{m}:b" 500000 "(i % 1000) + 0.25" "$(member_format m:)" 250000
  redis-cli -p "$port" RANK.MERGE "{m}:once" 2 "{m}:a" "{m}:b" >/dev/null
  local longest sum steps wall cpu verdict
  read -r longest sum steps wall cpu < <(step_merge "$merge_step_count" "{m}:week" "{m}:staging" "{m}:a" "{m}:b")
  [[ -n $cpu ]] || fail "long: the stepped merge of two 500k boards did not end"
  [[ $(redis-cli -p "$port" DEBUG DIGEST-VALUE "{m}:week") == \
    "$(redis-cli -p "$port" DEBUG DIGEST-VALUE "{m}:once")" ]] ||
    fail "long: the stepped merge of two 500k boards differs from the one-shot merge"
  verdict=$(awk -v l="$longest" 'BEGIN { print (l <= 10 ? "yes" : "NO") }')
  csv long "two 500k boards in steps: max step in SLOWLOG <= 10 ms: $verdict" 750000 ms "$longest" ms
  csv long "two 500k boards in steps: the longest step's CPU" 750000 ms "$cpu" ms
  csv long "two 500k boards in steps: sum of $steps steps" 750000 ms "$sum" ms
  progress "measured: two 500k boards in $steps steps of $merge_step_count: the longest $longest ms" \
    "(<= 10 ms: $verdict; $cpu ms CPU), $sum ms in all; equal to the one-shot merge"
  redis-cli -p "$port" FLUSHALL >/dev/null

  progress "long: RANK.MERGE of two boards of 10^6 members (building them)"
  fill_zset "$port" "{b}:a" 1000000 "(i % 1000) + 0.5" "$(member_format m:)"
  fill_zset "$port" "{b}:b" 1000000 "(i % 1000) + 0.25" "$(member_format m:)" 500000
  ms=$(hold_ms "return redis.call('DEL', '{b}:week')" RANK.MERGE "{b}:week" 2 "{b}:a" "{b}:b")
  csv long "RANK.MERGE of two 10^6 boards (1.5*10^6 members out)" 1000000 ms "$ms" ms
  progress "measured: RANK.MERGE of two 10^6 boards holds the server $ms ms"
  redis-cli -p "$port" FLUSHALL >/dev/null

  progress "long: FEED.ADD CAP trimming 10^6 items (building a feed of 2*10^6)"
  fill_zset "$port" feed:template 2000000 "i" "$(member_format m:)"
  ms=$(hold_ms "redis.call('DEL', 'feed'); return redis.call('COPY', 'feed:template', 'feed')" \
    FEED.ADD feed CAP 1000000 3000000 newest)
  csv long "FEED.ADD CAP trimming 10^6 items" 1000000 ms "$ms" ms
  progress "measured: FEED.ADD CAP trimming 10^6 items holds the server $ms ms"
  redis-cli -p "$port" FLUSHALL >/dev/null

  progress "long: DELAY.POLL of 10^4 due tasks"
  fill_zset "$port" queue:template 10000 "i" "$(member_format t:)"
  fill_zset "$port" queue:template 1000000 "4000000000000 + i" "$(member_format later:)"
  local copy="redis.call('DEL', 'q', 'held'); return redis.call('COPY', 'queue:template', 'q')"
  ms=$(hold_ms "$copy" DELAY.POLL q COUNT 10000)
  csv long "DELAY.POLL COUNT 10000 (10^4 due of 1.01*10^6)" 10000 ms "$ms" ms
  progress "measured: DELAY.POLL of 10^4 due tasks holds the server $ms ms"
  ms=$(hold_ms "$copy" DELAY.POLL q COUNT 10000 LEASE held 600000)
  csv long "DELAY.POLL COUNT 10000 LEASE (10^4 due of 1.01*10^6)" 10000 ms "$ms" ms
  progress "measured: DELAY.POLL LEASE of 10^4 due tasks holds the server $ms ms"
  stop_servers
}

# ---- 6. VOTE.CAST against client round trips -----------------------------------

run_vote() {
  port=$(free_port)
  start_server vote "$port" --loadmodule "$module"
  progress "vote: VOTE.CAST vs Lua vs round trips (bench/vote_load.rs)"
  (cd "$root" && "${pin_client[@]}" cargo bench --quiet --bench vote_load -- --port "$port" \
    --requests "$requests" --connections "$clients" --pipeline "$pipeline" --rounds "$rounds") \
    >"$out/vote.txt" || fail "vote: vote_load failed"
  cat "$out/vote.txt" >&2
  stop_servers
}

# ---- 7. small boards ---------------------------------------------------------

# Boards of 10 to 128 members, where the server's own layout is a listpack.
# Each command against: native commands on an INTEGER board of the same size
# (what a team has today: ZINCRBY without first-come ties, whose listpack
# keeps integers); the same RANK command on the same board in zkit 0.2's
# layout (`zkit.small-set-max 0`: a listpack of score text); the Lua a user
# would write, on the board as a server gives it (a listpack). zkit's board is
# measured busy (its first writes of a run move it to the skiplist layout:
# zkit.hot-set-writes), then again after DEBUG RELOAD (which loads it as a
# listpack, moved again by the run's first writes). Its memory is measured
# after one write (still the listpack) and busy (the skiplist).
# One case a line: name | zkit words | native commands, ";" between them |
# Lua words ("-": no script does it). {k} is the variant's board ({k}:week
# and {k}:all beside it), {n2} half the size, {t} a total near the middle.
small_cases=(
  "RANK.GIFT|RANK.GIFT {k} m:__rand_int__ 5|ZINCRBY {k} 5 m:__rand_int__;ZREVRANK {k} m:__rand_int__|rank_gift.lua 1 {k} m:__rand_int__ 5"
  "RANK.GIFT SHARED|RANK.GIFT {k} m:__rand_int__ 5 SHARED|ZINCRBY {k} 5 m:__rand_int__;ZCOUNT {k} {t} +inf|rank_gift.lua 1 {k} m:__rand_int__ 5 shared"
  "RANK.SET GT|RANK.SET {k} m:__rand_int__ 500 GT|ZADD {k} GT 500 m:__rand_int__;ZREVRANK {k} m:__rand_int__|rank_set_gt.lua 1 {k} m:__rand_int__ 500"
  "RANK.SET SHARED|RANK.SET {k} m:__rand_int__ 500 SHARED|ZADD {k} 500 m:__rand_int__;ZCOUNT {k} {t} +inf|-"
  "RANK.MGIFT 3 boards|RANK.MGIFT 3 {k} {k}:week {k}:all m:__rand_int__ 5|ZINCRBY {k} 5 m:__rand_int__;ZREVRANK {k} m:__rand_int__;ZINCRBY {k}:week 5 m:__rand_int__;ZREVRANK {k}:week m:__rand_int__;ZINCRBY {k}:all 5 m:__rand_int__;ZREVRANK {k}:all m:__rand_int__|rank_mgift.lua 3 {k} {k}:week {k}:all m:__rand_int__ 5"
  "RANK.MGIFT 3 boards SHARED|RANK.MGIFT 3 {k} {k}:week {k}:all m:__rand_int__ 5 SHARED|ZINCRBY {k} 5 m:__rand_int__;ZCOUNT {k} {t} +inf;ZINCRBY {k}:week 5 m:__rand_int__;ZCOUNT {k}:week {t} +inf;ZINCRBY {k}:all 5 m:__rand_int__;ZCOUNT {k}:all {t} +inf|-"
  "RANK.GET|RANK.GET {k} m:__rand_int__|ZSCORE {k} m:__rand_int__;ZREVRANK {k} m:__rand_int__|rank_get.lua 1 {k} m:__rand_int__"
  "RANK.GET SHARED|RANK.GET {k} m:__rand_int__ SHARED|ZSCORE {k} m:__rand_int__;ZCOUNT {k} {t} +inf|rank_get_shared.lua 1 {k} m:__rand_int__"
  "RANK.MGET 10|RANK.MGET {k} MEMBERS {ten}|ZMSCORE {k} {ten};{zrevrank10}|rank_mget.lua 1 {k} {ten}"
  "RANK.MGET 10 SHARED|RANK.MGET {k} SHARED MEMBERS {ten}|ZMSCORE {k} {ten};{zcount10}|-"
  "RANK.TOP 10|RANK.TOP {k} 10|ZREVRANGE {k} 0 9 WITHSCORES|rank_page.lua 1 {k} 10 0"
  "RANK.TOP 10 SHARED|RANK.TOP {k} 10 SHARED|ZREVRANGE {k} 0 9 WITHSCORES;ZCOUNT {k} {t} +inf|rank_page_shared.lua 1 {k} 10 0"
  "RANK.AROUND 5|RANK.AROUND {k} m:__rand_int__ 5|ZREVRANK {k} m:__rand_int__;ZREVRANGE {k} {n2_5} {n2p5} WITHSCORES|rank_page_shared.lua 1 {k} around m:__rand_int__ 5"
  "RANK.AROUND 5 SHARED|RANK.AROUND {k} m:__rand_int__ 5 SHARED|ZREVRANK {k} m:__rand_int__;ZREVRANGE {k} {n2_5} {n2p5} WITHSCORES;ZCOUNT {k} {t} +inf|rank_page_shared.lua 1 {k} around m:__rand_int__ 5"
)
small_sizes=${BENCH_SMALL_SIZES:-10 50 100 128}

# small_words <template> <key> <size>: the template's words for one variant.
small_words() {
  local t=$1 n=$3 ten zrevrank10 zcount10 i
  ten=$(printf 'm:__rand_int__ %.0s' 1 2 3 4 5 6 7 8 9 10)
  zrevrank10="" zcount10=""
  for i in 1 2 3 4 5 6 7 8 9 10; do
    zrevrank10+="ZREVRANK {k} m:__rand_int__;" zcount10+="ZCOUNT {k} {t} +inf;"
  done
  t=${t//\{zrevrank10\}/${zrevrank10%;}}
  t=${t//\{zcount10\}/${zcount10%;}}
  t=${t//\{ten\}/${ten% }}
  t=${t//\{k\}/$2}
  t=${t//\{t\}/$((n / 2))}
  t=${t//\{n2_5\}/$((n / 2 - 5 < 0 ? 0 : n / 2 - 5))}
  t=${t//\{n2p5\}/$((n / 2 + 5))}
  echo "$t"
}

# small_boards <size> <score expression>: bench:data and its :week and :all
# boards, members m:0 .. m:<size-1> (the names redis-benchmark draws).
small_boards() {
  local board
  for board in bench:data bench:data:week bench:data:all; do
    fill_zset "$port" "$board" "$1" "$2" "$(member_format m:)"
  done
}

# small_rate <variant key> <template> <size>: the rate of a case's commands
# (";" between them: their times add up).
small_rate() {
  local cmds=() c rates=()
  IFS=';' read -ra cmds <<<"$(small_words "$2" "$1" "$3")"
  for c in "${cmds[@]}"; do
    # shellcheck disable=SC2086 # the words are split on purpose
    rates+=("$(rate "$port" "$3" $c)")
  done
  printf '%s\n' "${rates[@]}" | combined_rate
}

# small_memory <key> <size> <variant>: the board's bytes per member.
small_memory() {
  local m
  m=$(redis-cli -p "$port" MEMORY USAGE "$1" SAMPLES 0)
  csv small-memory "board" "$2" "$3" "$(awk -v m="$m" -v n="$2" 'BEGIN { printf "%.1f", m / n }')" B/member
}

run_small() {
  port=$(free_port)
  start_server small "$port" --loadmodule "$module" --enable-debug-command yes
  local size r line name zkit native lua sha
  # The config's name since 0.5.0; the modules before it (which this script
  # also measures) know it as zkit.small-board-max.
  local small_max=zkit.small-set-max
  [[ -n $(redis-cli -p "$port" CONFIG GET "$small_max") ]] || small_max=zkit.small-board-max
  for size in $small_sizes; do
    redis-cli -p "$port" FLUSHALL >/dev/null
    redis-cli -p "$port" CONFIG SET "$small_max" 128 >/dev/null
    # Rank scores (totals spread over 0..size, distinct tie-breaks of 17
    # significant digits, as RANK writes them) and the integer board of the
    # same totals.
    small_boards "$size" "(i % $size) + 0.5 + (i % 97) / 3001"
    copy_data bench:z bench:p bench:l
    small_boards "$size" "(i % $size)"
    copy_data bench:n
    # zkit's boards after one RANK write (the listpack still), then busy:
    # 20 writes in one go move them to the skiplist layout.
    local k enc gifts=()
    redis-cli -p "$port" RANK.MGIFT 3 bench:z bench:z:week bench:z:all m:000000000000 1 >/dev/null
    small_memory bench:z "$size" z
    for k in $(seq 20); do gifts+=("RANK.MGIFT 3 bench:z bench:z:week bench:z:all m:000000000000 1"); done
    printf '%s\n' "${gifts[@]}" | redis-cli -p "$port" >/dev/null
    small_memory bench:z "$size" h
    small_memory bench:p "$size" p
    small_memory bench:n "$size" n
    enc=$(for k in bench:z bench:p bench:l bench:n; do redis-cli -p "$port" OBJECT ENCODING "$k"; done | tr '\n' ' ')
    progress "small: $size members; layouts of zkit (busy), 0.2, Lua, integer boards: $enc"
    for line in "${small_cases[@]}"; do
      IFS='|' read -r name zkit native lua <<<"$line"
      selected "$name" || continue
      [[ $lua == - ]] || sha=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$here/lua/${lua%% *}")")
      local z=() p=() n=() l=()
      for r in $(seq "$rounds"); do
        progress "small: $name at $size: round $r of $rounds"
        z+=("$(small_rate bench:z "$zkit" "$size")")
        redis-cli -p "$port" CONFIG SET "$small_max" 0 >/dev/null
        p+=("$(small_rate bench:p "$zkit" "$size")")
        redis-cli -p "$port" CONFIG SET "$small_max" 128 >/dev/null
        n+=("$(small_rate bench:n "$native" "$size")")
        [[ $lua == - ]] || l+=("$(small_rate bench:l "EVALSHA $sha ${lua#* }" "$size")")
      done
      local zm pm nm lm=0
      zm=$(printf '%s\n' "${z[@]}" | median) pm=$(printf '%s\n' "${p[@]}" | median)
      nm=$(printf '%s\n' "${n[@]}" | median)
      ((${#l[@]})) && lm=$(printf '%s\n' "${l[@]}" | median)
      csv small "$name" "$size" zkit "$zm" "$unit"
      csv small "$name" "$size" zkit-0.2-layout "$pm" "$unit"
      csv small "$name" "$size" native-integer "$nm" "$unit"
      ((${#l[@]})) && csv small "$name" "$size" lua "$lm" "$unit"
      progress "$(awk -v c="$name" -v s="$size" -v z="$zm" -v p="$pm" -v n="$nm" -v l="$lm" \
        'BEGIN { printf "measured: %-26s %4s  zkit %8.0f  0.2 layout %.2fx  vs integer native %.2fx  vs Lua %s", c, s, z, p / z, z / n, (l > 0 ? sprintf("%.2fx", z / l) : "-") }')"
    done
    # After DEBUG RELOAD every board is a listpack again until zkit's loaded
    # hook moves it (the integer board stays one).
    redis-cli -p "$port" DEBUG RELOAD >/dev/null
    enc=$(redis-cli -p "$port" OBJECT ENCODING bench:z)
    progress "small: $size members after DEBUG RELOAD: zkit's board is a $enc"
    for line in "${small_cases[@]}"; do
      IFS='|' read -r name zkit native lua <<<"$line"
      selected "$name" || continue
      # Native again in the same rounds: the ratio stays interleaved.
      local z=() n=()
      for r in $(seq "$rounds"); do
        z+=("$(small_rate bench:z "$zkit" "$size")")
        n+=("$(small_rate bench:n "$native" "$size")")
      done
      zm=$(printf '%s\n' "${z[@]}" | median) nm=$(printf '%s\n' "${n[@]}" | median)
      csv small "$name" "$size" zkit-after-reload "$zm" "$unit"
      csv small "$name" "$size" native-integer-after-reload "$nm" "$unit"
      progress "$(awk -v c="$name" -v s="$size" -v z="$zm" -v n="$nm" \
        'BEGIN { printf "measured: %s at %s after DEBUG RELOAD: zkit %.0f, vs integer native %.2fx", c, s, z, z / n }')"
    done
  done
  stop_servers
}

for section in $sections; do
  case $section in
    sweep) run_sweep ;;
    tax) run_tax ;;
    latency) [[ $measure == instructions ]] || run_latency ;;
    memory) run_memory ;;
    long) [[ $measure == instructions ]] || run_long ;;
    vote) [[ $measure == instructions ]] || run_vote ;;
    small) run_small ;;
    *) fail "unknown section $section (sweep tax latency memory long vote small)" ;;
  esac
done

# ---- report ----------------------------------------------------------------

# The code measured: docs/benchmarks.md names it, and scripts/bench-page-check.sh
# holds the page to it (a tree with uncommitted module changes says so).
commit=$(git -C "$root" rev-parse --short=12 HEAD)
(source "$root/scripts/lib.sh" && cd "$root" && git diff --quiet HEAD -- "${module_code[@]}") || commit="$commit+uncommitted changes"
cat >"$out/run.txt" <<EOF
server=$server_version
commit=$commit
measure=$measure
unit=$unit
sizes=$sizes
requests=$requests
rounds=$rounds
clients=$clients
pipeline=$pipeline
latency_rate=$latency_rate
latency_seconds=$latency_seconds
latency_size=$latency_size
quick=$quick
date=$(date -u +%Y-%m-%d)
minutes=$(((SECONDS - bench_started + 59) / 60))
EOF
# The plot needs matplotlib: from the system, or installed once into
# .bench/venv (ignored by git).
python=python3
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  python=$out/venv/bin/python
  if ! "$python" -c 'import matplotlib' 2>/dev/null; then
    progress "report: installing matplotlib into $out/venv (once)"
    { python3 -m venv "$out/venv" && "$python" -m pip install -q matplotlib; } ||
      fail "could not install matplotlib into $out/venv"
  fi
fi
progress "report: writing $out/table.md and $out/sweep.png"
"$python" "$here/report.py" "$out" || fail "report: bench/report.py failed"
progress "done in $(((SECONDS - bench_started + 59) / 60)) min: $out/results.csv, $out/table.md, $out/sweep.png;" \
  "make bench-docs puts them in docs/benchmarks.md"
