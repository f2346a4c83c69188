#!/usr/bin/env bash
# make server-suite: the server's own test suite, written by its authors, run
# with zkit loaded: loading zkit must not change anything the server
# promises. For each server of the compatibility matrix whose source Debian
# offers (`apt-get source`, scripts/debian-source.sh):
#   Redis 7.0.15  Debian 12's source and Debian 12's redis-server
#   Redis 8.0.2   Debian 13's source and Debian 13's redis-server, run through
#                 its own loader (scripts/lib.sh, debian13_server)
#   Valkey 8.1.1  Debian 13's source and valkey-server, the same way
# (Debian 13's source packages come as upstream tarballs alone when the
# mirror lacks their Debian files: scripts/debian-source.sh.)
# Each unit of UNITS runs with zkit loaded into every server the unit
# starts (`./runtest --single UNIT --config loadmodule libzkit.so`) on the
# servers UNITS names for it: on every server where what the unit tests
# meets zkit differently by server (module options, the command table, ACL
# categories, INFO, pauses), else once (docs/server-suite.md says which and
# why). A unit with a failure runs again without zkit, and the suite fails
# on every test that passes there and not with zkit. A test that fails
# with zkit only on a known upstream flake (FLAKES) gets one more run of its
# unit with zkit.
# Prints a table unit x server with each run's seconds (docs/server-suite.md
# says how to read it).
#
# Environment: ZKIT_MODULE (default: the release build, built if missing),
# SERVER_SUITE_SERVERS (versions to run, e.g. "7.0.15"; default all),
# SERVER_SUITE_UNITS (unit patterns to run on every chosen server, instead
# of UNITS), SERVER_SUITE_JOBS (units run at once, default 2),
# SERVER_SUITE_DIR (sources and logs, default .server-suite).
# `server-suite.sh fetch` only fetches the servers and their test trees.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
root=$PWD
work=${SERVER_SUITE_DIR:-$root/.server-suite}
started=$SECONDS

# The servers, by version: Debian suite | source package (and the prefix of
# its binaries) | directory with its NAME-server, NAME-cli, ...
declare -A servers=(
  [7.0.15]="bookworm|redis|/usr/bin"
  [8.0.2]="trixie|redis|$root/.compat/debian13"
  [8.1.1]="trixie|valkey|$root/.compat/debian13-valkey"
)

# unit pattern | servers it runs on: longest first (units start in this
# order, two at a time). Where a unit runs on one server only, the others'
# copy of it tests the same server code against the same zkit code (see
# docs/server-suite.md for each).
UNITS=(
  # Diskless load, async loading, the RDB channel: a module's declared
  # options decide how a replica loads, and each version loads differently.
  "integration/replication|7.0.15 8.0.2 8.1.1"
  "integration/replication-psync|8.0.2"
  "integration/replication-rdbchannel|8.0.2"
  "integration/replication-buffer|8.0.2"
  "integration/replication-4|7.0.15"
  "integration/replication-2|7.0.15"
  "integration/replication-3|7.0.15"
  "integration/psync2*|8.0.2"
  # What a replica and the AOF get: zkit writes native commands.
  "integration/aof*|7.0.15"
  "integration/rdb|7.0.15 8.0.2"
  # Pauses and failovers: the write gate; 7.4 and later no longer run
  # command filters again after a pause.
  "integration/failover|7.0.15 8.0.2 8.1.1"
  "integration/block-repl|7.0.15 8.0.2 8.1.1"
  "unit/pause|7.0.15 8.0.2"
  # What zkit's keys are, seen by zkit's command filter on every write.
  "unit/type/zset|8.0.2 8.1.1"
  "unit/type/set|7.0.15"
  # What every command meets: MULTI, scripts, tracking; the command table,
  # ACL categories (none for module commands before 7.2), INFO, keyspace.
  "unit/scripting|8.0.2"
  "unit/multi|7.0.15"
  "unit/tracking|8.0.2"
  "unit/acl|7.0.15 8.0.2 8.1.1"
  "unit/introspection|7.0.15 8.0.2 8.1.1"
  "unit/keyspace|7.0.15 8.0.2 8.1.1"
  "unit/info|7.0.15 8.0.2 8.1.1"
  "unit/other|7.0.15 8.0.2 8.1.1"
)

# Tests broken upstream in a server's test tree, skipped with and without
# zkit ("version|runtest --skiptest pattern"), each with why.
SKIPS=(
  # Debian's 7.0.15 tree has a test from a later branch that sets
  # `repl-diskless-load yes`, which 7.0 refuses: the exception ends the
  # unit, with or without zkit, and would make every run repeat
  # integration/replication (the longest unit) without zkit.
  "7.0.15|/^Fullsync should not free scripting engine on a replica"
)

# Upstream flakes: "unit|test name", each with where it was seen failing
# without zkit. Such a test gets one more run of its unit with zkit before
# it counts.
FLAKES=()

command -v tclsh >/dev/null || apt_install tcl
command -v dpkg-source >/dev/null || apt_install dpkg-dev

parallel=${SERVER_SUITE_JOBS:-2}

strip_colours() { sed -E 's/\x1b\[[0-9;]*m//g' "$1" | tr -d '\000'; }
# The tests a runtest log reports as passed / failed, one line each (a name
# repeats where a unit runs a test in a loop).
passed_tests() { strip_colours "$1" | sed -nE 's/^\[ok\]: (.*) \([0-9]+ ms\)$/\1/p'; }
failed_tests() { strip_colours "$1" | sed -nE 's/^\[(err|exception)\]: (.*)$/\2/p'; }
# Whether runtest got to run the unit at all, whatever the outcome: a test
# result, or the end of the unit (integration/aof-race has no named tests;
# an exception may end a unit early, with or without zkit).
# (grep reads to the end: with -q it would stop early, and pipefail would
# report the writer's SIGPIPE.)
ran() { strip_colours "$1" | grep -E '^\[(ok|err|exception|skip)\]: |^\[[0-9]+/[0-9]+ done\]: ' >/dev/null; }
# Tests that pass in log $2 and not in log $1 (counting repeats: a loop's
# test that passes 3 times in $2 and twice in $1 is listed once).
passed_only_in() { comm -13 <(passed_tests "$1" | sort) <(passed_tests "$2" | sort); }

# A base port for runtest (its test server listens 32 below it, its servers
# from it on): a random one among 10000-29600 whose test-server port is
# free now, so that runs side by side, and other work on the machine, rarely
# meet; a run that meets one anyway is tried again on another.
free_base_port() {
  local base
  for _ in $(seq 50); do
    base=$((10000 + 400 * (RANDOM % 50)))
    python3 -c 'import socket, sys; s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' \
      "$((base - 32))" 2>/dev/null && break
  done
  echo "$base"
}

# Runs one unit in a copy of the test tree of its own (runtest clears the
# copy's ./tests/tmp when it starts: two runs must not share it), under /tmp: the
# servers' unix sockets live in it, and a socket's path must stay under 108
# bytes. The log goes to $3.
run_unit() { # unit with|without log
  local unit=$1 mode=$2 log=$3 port load=() skips=() copy entry tool status skip
  port=$(free_base_port)
  [[ $mode == with ]] && load=(--config loadmodule "$module")
  for skip in "${SKIPS[@]}"; do
    [[ ${skip%%|*} == "$server" ]] && skips+=(--skiptest "${skip#*|}")
  done
  copy=$(mktemp -d /tmp/zkit-suite.XXXXXX)
  mkdir -p "$copy/src"
  for entry in "$tree"/*; do
    [[ $entry == */tests || $entry == */src ]] || ln -s "$entry" "$copy/"
  done
  cp -r "$tree/tests" "$copy/tests"
  for tool in server cli benchmark check-aof check-rdb; do
    ln -s "$bindir/$package-$tool" "$copy/src/$package-$tool"
  done
  (cd "$copy" && ./runtest --single "$unit" --clients 1 --baseport "$port" --portcount 400 \
    --timeout 600 "${skips[@]}" "${load[@]}") >"$log" 2>&1 || status=$?
  rm -rf "$copy"
  return "${status:-0}"
}

# One unit, start to verdict: with zkit; if anything failed, without; then
# the regressions (and flakes retried). Writes logs/SERVER/UNIT.result:
#   with-passed with-failed without-passed without-failed seconds, then the
#   regressions, one a line
check_unit() { # server unit
  local server=$1 unit=$2 started=$SECONDS
  local tree=${tree_of[$server]} bindir=${bindir_of[$server]} package=${package_of[$server]}
  local base=$work/logs/$server/${unit//\//_}
  local with=$base.with.log without=$base.without.log
  # A run that did not get through (its test server's port taken, say) is
  # tried once more; a unit that still does not run fails the suite.
  run_unit "$unit" with "$with" || ran "$with" || run_unit "$unit" with "$with" || true
  local wp wf np=- nf=- regressions=()
  wp=$(passed_tests "$with" | wc -l)
  wf=$(failed_tests "$with" | wc -l)
  if ! grep -q 'All tests passed without errors' <(strip_colours "$with"); then
    run_unit "$unit" without "$without" || ran "$without" ||
      run_unit "$unit" without "$without" || true
    np=$(passed_tests "$without" | wc -l)
    nf=$(failed_tests "$without" | wc -l)
    mapfile -t regressions < <(passed_only_in "$with" "$without")
    local flaky=() name
    for name in "${regressions[@]}"; do
      grep -xF "$unit|$name" <(printf '%s\n' "${FLAKES[@]}") >/dev/null && flaky+=("$name")
    done
    if ((${#regressions[@]})) && ((${#flaky[@]} == ${#regressions[@]})); then
      echo "server-suite: $server $unit: retrying flakes ${flaky[*]}" >&2
      run_unit "$unit" with "$base.retry.log" || true
      mapfile -t regressions < <(comm -23 <(printf '%s\n' "${regressions[@]}" | sort) \
        <(passed_tests "$base.retry.log" | sort))
    fi
  fi
  ran "$with" || regressions+=("(the unit did not run with zkit: see its log)")
  [[ $np == - ]] || ran "$without" || regressions+=("(the unit did not run without zkit: see its log)")
  { echo "$wp $wf $np $nf $((SECONDS - started))"; printf '%s\n' "${regressions[@]}"; } >"$base.result"
}

# The chosen servers: their test trees and binaries.
declare -A tree_of bindir_of package_of
chosen=()
for server in 7.0.15 8.0.2 8.1.1; do
  [[ -z ${SERVER_SUITE_SERVERS:-} || " $SERVER_SUITE_SERVERS " == *" $server "* ]] || continue
  IFS='|' read -r suite package bindir <<<"${servers[$server]}"
  [[ $suite == trixie ]] && debian13_server "$bindir" "$package"
  tree=$(bash scripts/debian-source.sh "$work/src/$suite" "$suite" "$package")
  version=$("$bindir/$package-server" --version | sed -E 's/.* v=([^ ]+) .*/\1/')
  [[ $version == "$server" ]] ||
    { echo "server-suite: $bindir/$package-server is $version, not $server" >&2; exit 1; }
  tree_of[$server]=$tree bindir_of[$server]=$bindir package_of[$server]=$package
  rm -rf "$work/logs/$server"
  mkdir -p "$work/logs/$server"
  chosen+=("$server")
done

[[ ${1:-} != fetch ]] || exit 0
module=$(release_module)

# The runs ("server|unit"), in the order of UNITS.
entries=("${UNITS[@]}")
if [[ -n ${SERVER_SUITE_UNITS:-} ]]; then
  entries=()
  for pattern in $SERVER_SUITE_UNITS; do entries+=("$pattern|${chosen[*]}"); done
fi
runs=()
for entry in "${entries[@]}"; do
  pattern=${entry%%|*}
  for server in "${chosen[@]}"; do
    [[ " ${entry#*|} " == *" $server "* ]] || continue
    found=0
    for file in "${tree_of[$server]}"/tests/$pattern.tcl; do
      [[ -f $file ]] || continue
      runs+=("$server|$(realpath --relative-to="${tree_of[$server]}/tests" "${file%.tcl}")")
      found=1
    done
    ((found)) || { echo "server-suite: no unit $pattern in ${tree_of[$server]}/tests" >&2; exit 1; }
  done
done
echo "server-suite: ${#runs[@]} runs of units on ${chosen[*]}, $parallel at a time, module $module" >&2

# $parallel at a time.
for run in "${runs[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do sleep 1; done
  check_unit "${run%%|*}" "${run#*|}" &
done
wait

table="| server | unit | with zkit: passed / failed | without zkit: passed / failed | passes only without zkit | seconds |
|---|---|---|---|---|---|"
failed=0
for run in "${runs[@]}"; do
  server=${run%%|*} unit=${run#*|}
  kind=Redis
  [[ ${package_of[$server]} == valkey ]] && kind=Valkey
  result=$work/logs/$server/${unit//\//_}.result
  read -r wp wf np nf seconds <"$result"
  regressed=$(tail -n +2 "$result" | paste -sd ';' || true)
  if [[ -n $regressed ]]; then
    failed=1
    verdict="FAIL: $regressed (logs: $work/logs/$server)"
  else
    verdict="none"
  fi
  [[ $np == - ]] && without="not run (nothing failed with zkit)" || without="$np / $nf"
  table+="
| $kind $server | $unit | $wp / $wf | $without | $verdict | $seconds |"
done
echo "$table" | tee "$work/table.md"
echo "server-suite: $((SECONDS - started)) s" >&2
exit $failed
