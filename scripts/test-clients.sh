#!/usr/bin/env bash
# make test-clients: the Python, Node and Rust clients against a plain server
# and a 3-master cluster, all with the release module, each client installed
# from the artifact a release publishes (the wheel, into a fresh venv, and
# the sdist into another; npm pack, then npm install of the tarball in a
# fresh folder; cargo package, then a fresh cargo project depending on the
# unpacked crate; cargo test in clients/rust). Then, on every cluster node:
# no MOVED or ASK in INFO errorstats and no COMMAND GETKEYS in INFO
# commandstats; on the plain server and on the cluster, every zkit command
# called by each suite, and data the servers held before (keys named like
# the suites' and the examples') unchanged. Every example also runs as a
# user runs it, as a script with REDIS_URL, on the plain server and on the
# cluster (both on ports other than 6379), and must leave no key behind.
# Finally the docs' example blocks must equal the example files. First of
# all, the generated command tables must be what docs/commands.json gives,
# and the packages' versions and metadata the module's
# (scripts/check-release-metadata.py). TEST_CLIENTS=python, node or rust
# runs one client only.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODULE=$ROOT/target/release/libzkit.so
CLI=${REDIS_CLI:-redis-cli}

say() { echo "test-clients: $*"; }
fail() { echo "test-clients: FAILED: $*" >&2; exit 1; }

for tool in cargo redis-server "$CLI" python3 node npm; do
  command -v "$tool" >/dev/null || fail "$tool is missing (make deps installs redis; Python 3.8+ and Node.js 18+ come from the system)"
done
say "the clients' command tables against docs/commands.json"
python3 scripts/gen-clients.py --check
say "the packages' versions and metadata against the module's"
python3 scripts/check-release-metadata.py
say "building the release module"
cargo build --release --quiet

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zkit-clients.XXXXXX")
SERVER_PIDS=()
stop_servers() {
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${SERVER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap stop_servers EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_server NAME PORT [redis-server options...]
start_server() {
  local dir=$WORK/$1 port=$2
  shift 2
  mkdir -p "$dir"
  (cd "$dir" && exec redis-server --bind 127.0.0.1 --port "$port" --dir . --save '' \
    --appendonly no --loadmodule "$MODULE" "$@" >server.log 2>&1) &
  SERVER_PIDS+=($!)
  for _ in $(seq 100); do
    "$CLI" -p "$port" PING >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$dir/server.log" >&2
  fail "redis-server on port $port did not start"
}

SINGLE_PORT=$(free_port)
start_server single "$SINGLE_PORT"
CLUSTER_PORTS=()
for n in 1 2 3; do
  port=$(free_port)
  start_server "node$n" "$port" --cluster-enabled yes --cluster-config-file nodes.conf \
    --cluster-node-timeout 5000 --cluster-port "$(free_port)"
  CLUSTER_PORTS+=("$port")
done
"$CLI" --cluster create "${CLUSTER_PORTS[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes >"$WORK/cluster-create.log" 2>&1 ||
  { cat "$WORK/cluster-create.log" >&2; fail "redis-cli --cluster create"; }
for port in "${CLUSTER_PORTS[@]}"; do
  for _ in $(seq 300); do
    info=$("$CLI" -p "$port" CLUSTER INFO)
    [[ $info == *cluster_state:ok* && $info == *cluster_known_nodes:3* ]] && break
    sleep 0.1
  done
  [[ $info == *cluster_state:ok* ]] || fail "cluster node $port is not ready"
done
say "plain server on 127.0.0.1:$SINGLE_PORT, cluster on ${CLUSTER_PORTS[*]/#/127.0.0.1:}"
export ZKIT_TEST_SERVER=127.0.0.1:$SINGLE_PORT
ZKIT_TEST_CLUSTER=$(IFS=,; echo "${CLUSTER_PORTS[*]/#/127.0.0.1:}")
export ZKIT_TEST_CLUSTER

ZKIT_COMMANDS=$("$CLI" -p "$SINGLE_PORT" COMMAND LIST FILTERBY MODULE zkit | grep -v '^zkit\.debug-panic$')

# Other data the suites must leave as it is (each test works under a key
# prefix of its own and flushes nothing): sorted sets named like the suites'
# keys without their prefix, {jobs} with due tasks a stray worker would take.
FOREIGN_KEYS=(board '{jobs}' '{jobs}:inflight' '{t}:mon' '{p}:board' 'gifts:room:42' 'feed:user:7' 'MemberRecentGoods:66')
FOREIGN_PORTS=("$SINGLE_PORT" "${CLUSTER_PORTS[0]}")
for port in "${FOREIGN_PORTS[@]}"; do
  for key in "${FOREIGN_KEYS[@]}"; do "$CLI" -c -p "$port" ZADD "$key" 1 other-team:1 2 other-team:2 >/dev/null; done
done
check_foreign() {
  local port key got
  for port in "${FOREIGN_PORTS[@]}"; do
    for key in "${FOREIGN_KEYS[@]}"; do
      got=$("$CLI" -c -p "$port" ZRANGE "$key" 0 -1 WITHSCORES | tr '\n' ' ')
      [[ $got == "other-team:1 1 other-team:2 2 " ]] || fail "$1 changed the other data: $key on port $port holds: $got"
    done
  done
  say "$1: the other data (${#FOREIGN_KEYS[@]} keys on the server and on the cluster) is untouched"
}

reset_stats() {
  for port in "$SINGLE_PORT" "${CLUSTER_PORTS[@]}"; do "$CLI" -p "$port" CONFIG RESETSTAT >/dev/null; done
}

# calls_of COMMAND PORT...: the command's calls summed over the servers.
calls_of() {
  local command=$1 total=0 calls
  shift
  for port in "$@"; do
    calls=$("$CLI" -p "$port" INFO commandstats | tr -d '\r' | sed -n "s/^cmdstat_$command:calls=\([0-9]*\),.*/\1/p")
    total=$((total + ${calls:-0}))
  done
  echo "$total"
}

# check_stats SUITE: what the suite sent since reset_stats.
check_stats() {
  local suite=$1 port errors getkeys zkit_calls command
  for port in "${CLUSTER_PORTS[@]}"; do
    errors=$("$CLI" -p "$port" INFO errorstats | tr -d '\r' | grep -E '^errorstat_(MOVED|ASK):' || true)
    getkeys=$(calls_of 'command|getkeys' "$port")
    zkit_calls=0
    for command in $ZKIT_COMMANDS; do zkit_calls=$((zkit_calls + $(calls_of "$command" "$port"))); done
    say "$suite: cluster node $port: $zkit_calls zkit calls, redirects: ${errors:-none}, COMMAND GETKEYS calls: $getkeys"
    [[ -z $errors ]] || fail "$suite: node $port answered MOVED/ASK"
    ((getkeys == 0)) || fail "$suite: node $port ran COMMAND GETKEYS"
  done
  for command in $ZKIT_COMMANDS; do
    (($(calls_of "$command" "$SINGLE_PORT") > 0)) || fail "$suite never called $command on the plain server"
    (($(calls_of "$command" "${CLUSTER_PORTS[@]}") > 0)) || fail "$suite never called $command on the cluster"
  done
  say "$suite: every zkit command ($(echo $ZKIT_COMMANDS | wc -w)) called on the plain server and on the cluster"
}

wants() { [[ ${TEST_CLIENTS:-python node rust} == *$1* ]]; }

# run_examples CLIENT COMMAND... [-- FILE...]: runs COMMAND FILE for every
# example file given (or COMMAND alone), as a user runs it (REDIS_URL, its
# own keys), on the plain server and on the cluster; none may leave a key
# behind.
run_examples() {
  local client=$1 command=() files=() url file port left
  shift
  while (($#)) && [[ $1 != -- ]]; do command+=("$1"); shift; done
  (($#)) && shift
  files=("$@")
  for url in "redis://127.0.0.1:$SINGLE_PORT" "redis://127.0.0.1:${CLUSTER_PORTS[1]}"; do
    for file in "${files[@]:-}"; do
      REDIS_URL=$url "${command[@]}" ${file:+"$file"} >"$WORK/example.out" 2>&1 ||
        { cat "$WORK/example.out" >&2; fail "$client: ${file:-${command[*]}} with REDIS_URL=$url"; }
    done
  done
  for port in "$SINGLE_PORT" "${CLUSTER_PORTS[@]}"; do
    left=$("$CLI" -p "$port" --scan --pattern 'zkit-example:*' | head -3)
    [[ -z $left ]] || fail "$client: the examples left keys on port $port: $left"
  done
  say "$client: ${files[*]:-${command[*]}} as scripts with REDIS_URL, on the plain server and on the cluster; no key left behind"
}

if wants python; then
  say "python: the sdist and the wheel (python -m build), the wheel installed into a fresh venv"
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check build pytest mypy
  "$WORK/venv/bin/python" -m build --outdir "$WORK/python-dist" clients/python >"$WORK/python-build.log" 2>&1 ||
    { cat "$WORK/python-build.log" >&2; fail "python -m build"; }
  version=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["package"]["version"])')
  wheel=$WORK/python-dist/zkit_redis-$version-py3-none-any.whl
  sdist=$WORK/python-dist/zkit_redis-$version.tar.gz
  [[ -f $wheel && -f $sdist ]] || fail "python -m build made: $(ls "$WORK/python-dist")"
  "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check "$wheel"
  "$WORK/venv/bin/python" -c 'import importlib.metadata as m, redis, zkit; print("test-clients: python: redis-py", redis.__version__, "zkit from", zkit.__file__, "(distribution zkit-redis", m.version("zkit-redis") + ")")'
  say "python: the sdist installed into another fresh venv runs the quick start"
  python3 -m venv "$WORK/sdist-venv"
  "$WORK/sdist-venv/bin/pip" install --quiet --disable-pip-version-check "$sdist"
  run_examples python "$WORK/sdist-venv/bin/python" -- clients/python/examples/quick_start.py
  examples=()
  for file in clients/python/examples/*.py; do
    [[ $file == */run_example.py ]] || examples+=("$file")
  done
  run_examples python "$WORK/venv/bin/python" -- "${examples[@]}"
  say "python: mypy on the package and the examples"
  (cd clients/python && "$WORK/venv/bin/mypy" --cache-dir "$WORK/mypy-cache" src/zkit examples)
  reset_stats
  (cd clients/python && "$WORK/venv/bin/python" -m pytest -p no:cacheprovider -q tests)
  check_stats python
  check_foreign python
fi

if wants node; then
  say "node: npm pack ./clients/node, then npm install of the tarball in a fresh folder"
  (cd clients/node && npm ci --silent --no-audit --no-fund && npm pack --silent --pack-destination "$WORK" >/dev/null)
  packed=$(tar -tzf "$WORK"/zkit-*.tgz)
  for file in package/LICENSE package/README.md package/dist/index.js package/dist/index.d.ts; do
    grep -qx "$file" <<<"$packed" || fail "node: the npm tarball has no $file"
  done
  mkdir "$WORK/node-app"
  cp -r clients/node/test clients/node/examples "$WORK/node-app/"
  (
    cd "$WORK/node-app"
    npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "$WORK"/zkit-*.tgz ioredis redis
    echo "test-clients: node: $(node -p '`ioredis ${require("ioredis/package.json").version}, redis ${require("redis/package.json").version}`')"
    echo "test-clients: node: tsc --strict on a typed use of the installed .d.ts"
    npm install --silent --no-audit --no-fund --no-save typescript@~5.9.3 @types/node@^20.19.0
    npx tsc --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --skipLibCheck test/types.ts
    examples=()
    for file in examples/*.mjs; do
      [[ $file == */run-example.mjs ]] || examples+=("$file")
    done
    run_examples node node -- "${examples[@]}"
    reset_stats
    node --test --test-concurrency=1 test/*.test.mjs test/*.test.cjs
  )
  check_stats node
  check_foreign node
fi

if wants rust; then
  say "rust: cargo test in clients/rust (its own workspace, Cargo.lock as committed)"
  (cd clients/rust && cargo test --locked --quiet --no-run)
  reset_stats
  (cd clients/rust && cargo test --locked)
  check_stats rust
  say "rust: cargo package, then the quick start (docs/quick-start.md) in a fresh cargo project on the unpacked crate"
  (cd clients/rust && cargo package --quiet --no-verify --allow-dirty)
  mkdir -p "$WORK/rust-app/src"
  tar -xzf "clients/rust/target/package/zkit-client-$(sed -n 's/^version = "\(.*\)"$/\1/p' clients/rust/Cargo.toml | head -1).crate" -C "$WORK"
  cat >"$WORK/rust-app/Cargo.toml" <<TOML
[package]
name = "rust-app"
version = "0.1.0"
edition = "2021"

[dependencies]
zkit-client = { path = "$(echo "$WORK"/zkit-client-*)" }
redis = { version = "1", features = ["cluster"] }

[workspace]
TOML
  cp clients/rust/examples/quick_start.rs "$WORK/rust-app/src/main.rs"
  cp clients/rust/Cargo.lock "$WORK/rust-app/"  # the dependencies' versions CI tests
  # The client's target folder: its dependencies are built already.
  CARGO_TARGET_DIR=$ROOT/clients/rust/target cargo build --quiet --manifest-path "$WORK/rust-app/Cargo.toml"
  run_examples rust "$ROOT/clients/rust/target/debug/rust-app"
  for url in "redis://127.0.0.1:$SINGLE_PORT" "redis://127.0.0.1:${CLUSTER_PORTS[1]}"; do
    example_out=$(REDIS_URL=$url "$ROOT/clients/rust/target/debug/rust-app")
    [[ $example_out == $'alice: 10 at rank 1\ndue at 0: mail:1' ]] || fail "rust quick start on $url printed: $example_out"
  done
  check_foreign rust
fi

say "docs example blocks"
python3 scripts/check-doc-includes.py
say "all passed"
