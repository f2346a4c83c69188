# Helpers for bench/bench.sh: servers, measurements, data, results.
# Sourced; expects $measure, $requests, $clients, $pipeline, $server, $out, $here.
# shellcheck shell=bash disable=SC2154 # those are bench.sh's

# ---- progress --------------------------------------------------------------

bench_started=$SECONDS
# progress <text>: one line on stderr with the time since the run started.
progress() {
  local s=$((SECONDS - bench_started))
  printf '[%2d:%02d] %s\n' $((s / 60)) $((s % 60)) "$*" >&2
}
fail() {
  echo "bench: $*" >&2
  # Inside $(...) exiting ends only the subshell: stop the whole run, so a
  # failed measurement never becomes a number.
  [[ $BASHPID == "$$" ]] || kill -TERM "$$"
  exit 1
}

# ---- servers ---------------------------------------------------------------

# Server and load generator on different cores when the machine has two.
pin_server=() pin_client=()
if command -v taskset >/dev/null && (($(nproc) >= 2)); then
  pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi

declare -A server_pid server_dir
started_servers=()
# start_server <name> <port> [redis-server args...]: a server of its own
# (its own folder, no persistence), under callgrind in instructions mode.
start_server() {
  local name=$1 port=$2
  shift 2
  local dir
  dir=$(mktemp -d "$out/tmp.$name.XXXX")
  local wrap=() extra=()
  if [[ $measure == instructions ]]; then
    # Valgrind slows the server ~50x, not its timers: hz 1 keeps the cron's
    # share of each request small.
    wrap=(valgrind --tool=callgrind --log-file="$dir/valgrind.log"
      --callgrind-out-file="$dir/callgrind.out")
    extra=(--hz 1)
  fi
  "${pin_server[@]}" "${wrap[@]}" "$server" --port "$port" --bind 127.0.0.1 --dir "$dir" \
    --save "" --appendonly no --logfile server.log --daemonize no "${extra[@]}" "$@" &
  server_pid[$port]=$!
  server_dir[$port]=$dir
  started_servers+=("$port")
  local _
  for _ in $(seq 1200); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && return
    kill -0 "${server_pid[$port]}" 2>/dev/null || break
    sleep 0.05
  done
  fail "server $name on port $port did not start: $(tail -3 "$dir/server.log" 2>/dev/null | tr '\n' ' ')"
}

stop_servers() {
  local port
  for port in "${started_servers[@]}"; do
    kill "${server_pid[$port]}" 2>/dev/null || true
    wait "${server_pid[$port]}" 2>/dev/null || true
    rm -rf "${server_dir[$port]}"
  done
  started_servers=()
}

# free_port [count]: the first of `count` consecutive ports nobody listens
# on, from the ports nothing else on the machine hands out
# (scripts/spare_ports.py says which and why).
free_port() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/../scripts/spare_ports.py" "${1:-1}"
}

# ---- measurements ----------------------------------------------------------

# rate <port> <keyspace> <command words...>: requests per second
# (redis-benchmark, $clients clients, pipeline $pipeline), or in instructions
# mode requests per billion server instructions (callgrind), which other load
# on the machine does not move. Either way, higher is faster, and ratios
# between commands read the same. With BENCH_PROFILE=1 (instructions mode)
# the callgrind profile is kept as .bench/profiles/$profile_label.callgrind;
# with BENCH_PERF=1 (ops mode) a perf profile as $profile_label.perf.
rate() {
  local port=$1 keyspace=$2
  shift 2
  if [[ $measure == instructions ]]; then
    local dir=${server_dir[$port]} pid=${server_pid[$port]} dumps
    dumps=$(find "$dir" -name 'callgrind.out.*' | wc -l)
    # A warm-up run first, so one-off work (lazy binding, a cron tick after a
    # preload) is not counted.
    redis-benchmark -p "$port" -n $((requests / 10 + 1)) -c "$clients" -P "$pipeline" \
      -r "$keyspace" -q "$@" >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    redis-benchmark -p "$port" -n "$requests" -c "$clients" -P "$pipeline" -r "$keyspace" -q "$@" >/dev/null ||
      fail "redis-benchmark failed for: $*"
    kill -0 "$pid" 2>/dev/null || fail "the server on port $port died (log: $dir/server.log)"
    callgrind_control -d "$pid" >/dev/null 2>&1
    while (($(find "$dir" -name 'callgrind.out.*' | wc -l) == dumps)); do sleep 0.1; done
    sleep 0.2
    local dump
    # shellcheck disable=SC2012 # callgrind names its dumps callgrind.out.<pid>.<n>
    dump=$(ls -t "$dir"/callgrind.out.* | head -1)
    if [[ -n ${BENCH_PROFILE:-} && -n ${profile_label:-} ]]; then
      mkdir -p "$out/profiles"
      cp "$dump" "$out/profiles/$profile_label.callgrind"
    fi
    awk -v n="$requests" '/^summary:/ { ir = $2 } END { printf "%.0f", n * 1e9 / ir }' "$dump"
    return
  fi
  local result perf_pid=
  if [[ -n ${BENCH_PERF:-} && -n ${profile_label:-} ]]; then
    # Sampled on the clock (this virtual machine has no hardware counters):
    # where the server's time goes, memory stalls included, which the
    # instruction counts of callgrind cannot show.
    mkdir -p "$out/profiles"
    perf record -q -e cpu-clock -F 4000 -p "${server_pid[$port]}" \
      -o "$out/profiles/$profile_label.perf" >/dev/null 2>&1 &
    perf_pid=$!
    sleep 0.5
  fi
  result=$("${pin_client[@]}" redis-benchmark -p "$port" -n "$requests" -c "$clients" -P "$pipeline" \
    -r "$keyspace" --csv "$@" | awk -F'"' 'NR == 2 { print $4 }')
  if [[ -n $perf_pid ]]; then
    kill -INT "$perf_pid"
    wait "$perf_pid" || true
  fi
  [[ -n $result ]] || fail "redis-benchmark got no result for: $* (server on port $port alive: $(
    redis-cli -p "$port" ping 2>&1))"
  echo "$result"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The rate of several commands done one after the other, from their rates:
# their times per request add up.
combined_rate() { awk 'BEGIN { t = 0 } { t += 1 / $1 } END { printf "%.0f", 1 / t }'; }

# ---- data ------------------------------------------------------------------

# fill_zset <port> <key> <count> <lua score expression of i> <member format> [first]:
# adds members format(i) scored expr(i) for i = first .. first + count - 1,
# 1000 per ZADD, inside the server (fast at 10^7 too).
fill_zset() {
  local port=$1 key=$2 count=$3 score=$4 member=$5 first=${6:-0}
  ((count > 0)) || return 0
  redis-cli -p "$port" EVAL "
    local first, last = tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1
    for s = first, last, 1000 do
      local args = {}
      for i = s, math.min(s + 999, last) do
        args[#args + 1] = $score
        args[#args + 1] = string.format(ARGV[3], i)
      end
      redis.call('ZADD', KEYS[1], unpack(args))
    end
    return redis.call('ZCARD', KEYS[1])" 1 "$key" "$first" "$count" "$member" >/dev/null ||
    fail "could not fill $key"
}

# redis-benchmark writes __rand_int__ as 12 digits: members that commands
# pick at random are spelled the same way.
member_format() { echo "$1%012d"; }

# ---- results ---------------------------------------------------------------

# csv <fields...>: one row of $out/results.csv (fields must not hold commas).
csv() {
  local IFS=,
  echo "$*" >>"$out/results.csv"
}
