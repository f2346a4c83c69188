#!/usr/bin/env bash
# make test-clients: the Python, Node and Rust clients, each installed from
# the artifact a release publishes (the wheel, into a fresh venv, and the
# sdist into another; npm pack, then npm install of the tarball in a fresh
# folder; cargo package, then a fresh cargo project depending on the
# unpacked crate; cargo test in clients/rust), then run by the integration
# harness (tests/integration/clients.rs) against its servers: for each
# engine, a plain server and a 3-master cluster on free loopback ports,
# holding other teams' data. The engines: the release module, and servers
# without it where each suite loads zkit's Functions library as users do
# (ZKIT_TEST_ENGINE=functions; docs/functions.md). For each client on each
# engine the harness calls this script back with `suite CLIENT` (the
# client's suite, on ZKIT_TEST_SERVER and ZKIT_TEST_CLUSTER), then checks,
# on every cluster node, no MOVED or ASK in INFO errorstats and no COMMAND
# GETKEYS in INFO commandstats, and every zkit command called on the plain
# server and on the cluster (with the library: FCALL, its only name in
# INFO); then with `examples CLIENT` and REDIS_URL naming the plain server,
# then a cluster node: every example run as a user runs it, as a script
# (the Rust quick start printing what docs/quick-start.md shows), none may
# leave a key behind; then the other data must be unchanged. Each package
# must carry the library (zkit.lua, as functions/zkit.lua). First of all,
# the generated command tables must be what docs/commands.json gives, and
# the packages' versions and metadata the module's
# (scripts/check/check-release-metadata.py); last, the docs' example blocks must
# equal the example files.
# TEST_CLIENTS=python, node or rust runs one client only;
# TEST_CLIENTS_ENGINES=module or functions one engine only; ZKIT_MODULE
# picks the module (default: this tree's release build, built if stale).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
source scripts/lib.sh

say() { echo "test-clients: $*"; }
fail() { echo "test-clients: FAILED: $*" >&2; exit 1; }

# example COMMAND...: one example as a user runs it (REDIS_URL, its own
# keys); its output shows only if it fails.
example() {
  "$@" >"$CLIENTS_WORK/example.out" 2>&1 ||
    { cat "$CLIENTS_WORK/example.out" >&2; fail "$* with REDIS_URL=$REDIS_URL"; }
}

# Called back by the harness with its servers up (see the top).
case ${1:-} in
  suite)
    case $2 in
      python) cd clients/python && exec "$CLIENTS_WORK/venv/bin/python" -m pytest -p no:cacheprovider -q tests ;;
      node) cd "$CLIENTS_WORK/node-app" && exec node --test --test-concurrency=1 test/*.test.mjs test/*.test.cjs ;;
      rust) cd clients/rust && exec cargo test --locked ;;
      *) fail "no client suite $2" ;;
    esac ;;
  examples)
    case $2 in
      python)
        # The quick start from the sdist too.
        example "$CLIENTS_WORK/sdist-venv/bin/python" clients/python/examples/quick_start.py
        for file in clients/python/examples/*.py; do
          [[ $file == */run_example.py ]] || example "$CLIENTS_WORK/venv/bin/python" "$file"
        done ;;
      node)
        cd "$CLIENTS_WORK/node-app"
        for file in examples/*.mjs; do
          [[ $file == */run-example.mjs ]] || example node "$file"
        done ;;
      rust)
        out=$("$ROOT/clients/rust/target/debug/rust-app") || fail "rust quick start with REDIS_URL=$REDIS_URL"
        [[ $out == $'alice: 10 at rank 1\ndue at 0: mail:1' ]] || fail "rust quick start on $REDIS_URL printed: $out" ;;
      *) fail "no client examples $2" ;;
    esac
    exit 0 ;;
esac

for tool in cargo redis-server redis-cli python3 node npm; do
  command -v "$tool" >/dev/null || fail "$tool is missing (make deps installs redis; Python 3.8+ and Node.js 18+ come from the system)"
done
say "the clients' command tables against docs/commands.json"
python3 scripts/gen/gen-clients.py --check
say "the packages' versions and metadata against the module's"
python3 scripts/check/check-release-metadata.py
export ZKIT_MODULE
ZKIT_MODULE=$(release_module)
# A Valkey 9 server, whose Lua engine is a module: each suite starts one
# and unloads it, for the clients' error on a server with neither zkit nor Lua.
export ZKIT_TEST_VALKEY
ZKIT_TEST_VALKEY=$(server_binary valkey-9.1)
say "module $ZKIT_MODULE; the integration harness (cargo test --no-run)"
cargo test --no-run --quiet --test integration

export CLIENTS_WORK
CLIENTS_WORK=$(mktemp -d "${TMPDIR:-/tmp}/zkit-clients.XXXXXX")
trap 'rm -rf "$CLIENTS_WORK"' EXIT

wants() { [[ ${TEST_CLIENTS:-python node rust} == *$1* ]]; }
if wants python; then
  say "python: the sdist and the wheel (python -m build), the wheel installed into a fresh venv"
  python3 -m venv "$CLIENTS_WORK/venv"
  "$CLIENTS_WORK/venv/bin/pip" install --quiet --disable-pip-version-check build pytest mypy
  "$CLIENTS_WORK/venv/bin/python" -m build --outdir "$CLIENTS_WORK/python-dist" clients/python >"$CLIENTS_WORK/python-build.log" 2>&1 ||
    { cat "$CLIENTS_WORK/python-build.log" >&2; fail "python -m build"; }
  version=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["package"]["version"])')
  wheel=$CLIENTS_WORK/python-dist/zkit_redis-$version-py3-none-any.whl
  sdist=$CLIENTS_WORK/python-dist/zkit_redis-$version.tar.gz
  [[ -f $wheel && -f $sdist ]] || fail "python -m build made: $(ls "$CLIENTS_WORK/python-dist")"
  "$CLIENTS_WORK/venv/bin/pip" install --quiet --disable-pip-version-check "$wheel"
  "$CLIENTS_WORK/venv/bin/python" -c 'import importlib.metadata as m, redis, zkit; print("test-clients: python: redis-py", redis.__version__, "zkit from", zkit.__file__, "(distribution zkit-redis", m.version("zkit-redis") + ")")'
  say "python: the sdist installed into another fresh venv (it runs the quick start)"
  python3 -m venv "$CLIENTS_WORK/sdist-venv"
  "$CLIENTS_WORK/sdist-venv/bin/pip" install --quiet --disable-pip-version-check "$sdist"
  for python in "$CLIENTS_WORK/venv/bin/python" "$CLIENTS_WORK/sdist-venv/bin/python"; do
    "$python" -c 'import pathlib, sys, zkit; sys.exit(pathlib.Path(zkit.__file__).with_name("zkit.lua").read_bytes() != pathlib.Path("functions/zkit.lua").read_bytes())' ||
      fail "python: $python's zkit package does not carry functions/zkit.lua"
  done
  say "python: mypy on the package and the examples"
  (cd clients/python && "$CLIENTS_WORK/venv/bin/mypy" --cache-dir "$CLIENTS_WORK/mypy-cache" src/zkit examples)
fi

if wants node; then
  say "node: npm pack ./clients/node, then npm install of the tarball in a fresh folder"
  (cd clients/node && npm ci --silent --no-audit --no-fund && npm pack --silent --pack-destination "$CLIENTS_WORK" >/dev/null)
  packed=$(tar -tzf "$CLIENTS_WORK"/zkit-*.tgz)
  for file in package/LICENSE package/README.md package/dist/index.js package/dist/index.d.ts package/zkit.lua; do
    grep -qx "$file" <<<"$packed" || fail "node: the npm tarball has no $file"
  done
  mkdir "$CLIENTS_WORK/node-app"
  cp -r clients/node/test clients/node/examples "$CLIENTS_WORK/node-app/"
  cp docs/commands.json "$CLIENTS_WORK/node-app/test/"  # the declarations' examples (declared-examples.test.mjs)
  (
    cd "$CLIENTS_WORK/node-app"
    npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "$CLIENTS_WORK"/zkit-*.tgz ioredis redis
    # shellcheck disable=SC2016 # a JavaScript template literal
    echo "test-clients: node: $(node -p '`ioredis ${require("ioredis/package.json").version}, redis ${require("redis/package.json").version}`')"
    echo "test-clients: node: tsc --strict on a typed use of the installed .d.ts"
    npm install --silent --no-audit --no-fund --no-save typescript@~5.9.3 @types/node@^20.19.0
    npx tsc --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --skipLibCheck test/types.ts
  )
fi

if wants rust; then
  say "rust: cargo test in clients/rust (its own workspace, Cargo.lock as committed)"
  (cd clients/rust && cargo test --locked --quiet --no-run)
  say "rust: cargo package, then the quick start (docs/quick-start.md) in a fresh cargo project on the unpacked crate"
  (cd clients/rust && cargo package --quiet --no-verify --allow-dirty)
  mkdir -p "$CLIENTS_WORK/rust-app/src"
  version=$(sed -n 's/^version = "\(.*\)"$/\1/p' clients/rust/Cargo.toml | head -1)
  tar -xzf "clients/rust/target/package/zkit-client-$version.crate" -C "$CLIENTS_WORK"
  cat >"$CLIENTS_WORK/rust-app/Cargo.toml" <<TOML
[package]
name = "rust-app"
version = "0.1.0"
edition = "2021"

[dependencies]
zkit-client = { path = "$(echo "$CLIENTS_WORK"/zkit-client-*)" }
redis = { version = "1", features = ["cluster"] }

[workspace]
TOML
  cp clients/rust/examples/quick_start.rs "$CLIENTS_WORK/rust-app/src/main.rs"
  cp clients/rust/Cargo.lock "$CLIENTS_WORK/rust-app/"  # the dependencies' versions CI tests
  # The client's target folder: its dependencies are built already.
  CARGO_TARGET_DIR=$ROOT/clients/rust/target cargo build --quiet --manifest-path "$CLIENTS_WORK/rust-app/Cargo.toml"
  tar -tzf "clients/rust/target/package/zkit-client-$version.crate" | grep -qx "zkit-client-$version/zkit.lua" ||
    fail "rust: the crate has no zkit.lua"
fi

say "the suites and the examples on the harness's servers (tests/integration/clients.rs)"
clients=()
for client in python node rust; do
  if wants "$client"; then clients+=("$client"); fi
done
ZKIT_CLIENTS=${clients[*]} ZKIT_CLIENT_ENGINES=${TEST_CLIENTS_ENGINES:-module functions} \
  cargo test --quiet --test integration -- --ignored --exact --nocapture \
  clients::client_suites_and_examples_call_every_command_and_touch_nothing_else

say "docs example blocks"
python3 scripts/check/check-doc-includes.py
say "all passed"
