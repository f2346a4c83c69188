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
# every unit of UNITS (VALKEY_UNITS on Valkey) runs with zkit loaded into
# every server the unit starts (`./runtest --single UNIT --config loadmodule
# libzkit.so`). A unit with a failure runs again without zkit, and the suite
# fails on every test that passes there and not with zkit. A test that fails
# with zkit only on a known upstream flake (FLAKES) gets one more run of its
# unit with zkit.
# Prints a table unit x server (docs/server-suite.md says how to read it).
#
# Environment: ZKIT_MODULE (default target/release/libzkit.so, built if
# missing), SERVER_SUITE_SERVERS (names to run, e.g. "7.0.15"; default all),
# SERVER_SUITE_UNITS (unit names to run; default UNITS), SERVER_SUITE_JOBS
# (units run at once, default 2), SERVER_SUITE_DIR (sources and logs, default
# .server-suite).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
root=$PWD
work=${SERVER_SUITE_DIR:-$root/.server-suite}
started=$SECONDS

# The units: replication in all its forms (where a module's options decide
# how a replica loads), persistence, pauses and failover (the write gate),
# sorted sets and sets (what zkit's keys are), and what every command meets
# (MULTI, scripts, ACL, INFO, keyspace, client tracking, introspection).
UNITS=(
  'integration/replication*' 'integration/psync2*' 'integration/aof*'
  integration/rdb integration/failover integration/block-repl
  unit/pause unit/other unit/type/zset unit/type/set unit/keyspace unit/multi
  unit/scripting unit/info unit/acl unit/introspection unit/tracking
)

# Valkey runs a shorter list, to keep CI short (docs/server-suite.md): the
# units where a module's options, command table or INFO section show.
VALKEY_UNITS=(
  integration/replication integration/block-repl integration/failover
  unit/other unit/info unit/acl unit/introspection unit/type/zset unit/keyspace
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

module=${ZKIT_MODULE:-$root/target/release/libzkit.so}
[[ -f $module ]] || cargo build --release
parallel=${SERVER_SUITE_JOBS:-2}

# version | Debian suite | source package (and binaries' prefix) | directory
# with its NAME-server, NAME-cli, ...
servers=(
  "7.0.15|bookworm|redis|/usr/bin"
  "8.0.2|trixie|redis|$root/.compat/debian13"
  "8.1.1|trixie|valkey|$root/.compat/debian13-valkey"
)

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

# Runs one unit in a copy of the test tree of its own (runtest clears
# tests/tmp when it starts: two runs must not share it), under /tmp: the
# servers' unix sockets live in it, and a socket's path must stay under 108
# bytes. The log goes to $3.
run_unit() { # unit with|without log port
  local unit=$1 mode=$2 log=$3 port=$4 load=() skips=() copy entry tool status skip
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
# the regressions (and flakes retried). Writes $dir/UNIT.result:
#   with-passed with-failed without-passed without-failed regressions...
check_unit() { # unit port
  local unit=$1 port=$2 base=$dir/${1//\//_}
  local with=$base.with.log without=$base.without.log
  # A run that did not get through (its test server's port taken, say) is
  # tried once more; a unit that still does not run fails the suite.
  run_unit "$unit" with "$with" "$port" || ran "$with" || run_unit "$unit" with "$with" "$port" || true
  local wp wf np=- nf=- regressions=()
  wp=$(passed_tests "$with" | wc -l)
  wf=$(failed_tests "$with" | wc -l)
  if ! grep -q 'All tests passed without errors' <(strip_colours "$with"); then
    run_unit "$unit" without "$without" "$port" || ran "$without" ||
      run_unit "$unit" without "$without" "$port" || true
    np=$(passed_tests "$without" | wc -l)
    nf=$(failed_tests "$without" | wc -l)
    mapfile -t regressions < <(passed_only_in "$with" "$without")
    local flaky=() name
    for name in "${regressions[@]}"; do
      grep -xF "$unit|$name" <(printf '%s\n' "${FLAKES[@]}") >/dev/null && flaky+=("$name")
    done
    if ((${#regressions[@]})) && ((${#flaky[@]} == ${#regressions[@]})); then
      echo "server-suite: $server $unit: retrying flakes ${flaky[*]}" >&2
      run_unit "$unit" with "$base.retry.log" "$port" || true
      mapfile -t regressions < <(comm -23 <(printf '%s\n' "${regressions[@]}" | sort) \
        <(passed_tests "$base.retry.log" | sort))
    fi
  fi
  ran "$with" || regressions+=("(the unit did not run with zkit: see its log)")
  [[ $np == - ]] || ran "$without" || regressions+=("(the unit did not run without zkit: see its log)")
  { echo "$wp $wf $np $nf"; printf '%s\n' "${regressions[@]}"; } >"$base.result"
}

table="| server | unit | with zkit: passed / failed | without zkit: passed / failed | passes only without zkit |
|---|---|---|---|---|"
failed=0
for entry in "${servers[@]}"; do
  IFS='|' read -r server suite package bindir <<<"$entry"
  [[ -z ${SERVER_SUITE_SERVERS:-} || " $SERVER_SUITE_SERVERS " == *" $server "* ]] || continue
  [[ $suite == trixie ]] && debian13_server "$bindir" "$package"
  tree=$(bash scripts/debian-source.sh "$work/src/$suite" "$suite" "$package")
  version=$("$bindir/$package-server" --version | sed -E 's/.* v=([^ ]+) .*/\1/')
  [[ $version == "$server" ]] ||
    { echo "server-suite: $bindir/$package-server is $version, not $server" >&2; exit 1; }
  dir=$work/logs/$server
  rm -rf "$dir"
  mkdir -p "$dir"
  units=()
  patterns=("${UNITS[@]}")
  [[ $package == valkey ]] && patterns=("${VALKEY_UNITS[@]}")
  for pattern in ${SERVER_SUITE_UNITS:-${patterns[@]}}; do
    found=0
    for file in "$tree"/tests/$pattern.tcl; do
      [[ -f $file ]] || continue
      units+=("$(realpath --relative-to="$tree/tests" "${file%.tcl}")")
      found=1
    done
    ((found)) || { echo "server-suite: no unit $pattern in $tree/tests" >&2; exit 1; }
  done
  kind=Redis
  [[ $package == valkey ]] && kind=Valkey
  echo "server-suite: $kind $server, ${#units[@]} units, module $module" >&2
  # Units run $parallel at a time, each on ports of its own.
  slot=0
  for unit in "${units[@]}"; do
    while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
    check_unit "$unit" $((20000 + 400 * (slot % 20))) &
    slot=$((slot + 1))
  done
  wait
  for unit in "${units[@]}"; do
    result=$dir/${unit//\//_}.result
    read -r wp wf np nf <"$result"
    regressions=$(tail -n +2 "$result" | paste -sd ';' || true)
    if [[ -n $regressions ]]; then
      failed=1
      verdict="FAIL: $regressions (logs: $dir)"
    else
      verdict="none"
    fi
    [[ $np == - ]] && without="not run (nothing failed with zkit)" || without="$np / $nf"
    table+="
| $kind $server | $unit | $wp / $wf | $without | $verdict |"
  done
done
echo "$table" | tee "$work/table.md"
echo "server-suite: $((SECONDS - started)) s" >&2
exit $failed
