#!/usr/bin/env bash
# make test-clients: the Python, Node and Rust clients, each installed the
# way the quick start tells a user (pip into a fresh venv; npm pack, then
# npm install of the tarball in a fresh folder; cargo test in clients/rust),
# each suite run against a plain server and a 3-master cluster with the
# release module by the integration harness (tests/integration/clients.rs:
# it starts the servers beside other data, calls this script back with
# `suite NAME`, then checks that the suite called every zkit command on
# both, got no MOVED, ASK or COMMAND GETKEYS on the cluster, and left the
# other data alone). Finally the docs' example blocks must equal the
# example files. First of all, the generated command tables must be what
# docs/commands.json gives.
# TEST_CLIENTS=python, node or rust runs one client only; ZKIT_MODULE picks
# the module (default: the release build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

say() { echo "test-clients: $*"; }
fail() { echo "test-clients: FAILED: $*" >&2; exit 1; }

# Called back by the harness with the servers up (ZKIT_TEST_SERVER,
# ZKIT_TEST_CLUSTER set): one client's suite.
if [[ ${1:-} == suite ]]; then
  case $2 in
    python) cd clients/python && exec "$CLIENTS_WORK/venv/bin/python" -m pytest -p no:cacheprovider -q tests ;;
    node) cd "$CLIENTS_WORK/node-app" && exec node --test --test-concurrency=1 test/*.test.mjs test/*.test.cjs ;;
    rust)
      cd clients/rust
      cargo test --locked
      say "rust: the quick start example (docs/clients.md) on the cluster, on a prefix of its own"
      example_out=$(cargo run --locked --quiet --example quick_start -- \
        "redis://${ZKIT_TEST_CLUSTER%%,*}" "zkit-example-rust:$$:")
      [[ $example_out == $'alice: 10 at rank 1\ndue at 0: mail:1' ]] || fail "rust quick start printed: $example_out"
      exit 0 ;;
    *) fail "no client suite $2" ;;
  esac
fi

for tool in cargo redis-server redis-cli python3 node npm; do
  command -v "$tool" >/dev/null || fail "$tool is missing (make deps installs redis; Python 3.8+ and Node.js 18+ come from the system)"
done
say "the clients' command tables against docs/commands.json"
python3 scripts/gen-clients.py --check
export ZKIT_MODULE
ZKIT_MODULE=$(release_module)
say "module $ZKIT_MODULE"
cargo test --no-run --test integration -q

export CLIENTS_WORK
CLIENTS_WORK=$(mktemp -d "${TMPDIR:-/tmp}/zkit-clients.XXXXXX")
trap 'rm -rf "$CLIENTS_WORK"' EXIT

# One client's suite on the harness's servers (see the top).
run_suite() { # client
  ZKIT_CLIENT=$1 ZKIT_CLIENT_SUITE="bash scripts/test-clients.sh suite $1" \
    cargo test -q --test integration clients:: -- --ignored --nocapture
}

wants() { [[ ${TEST_CLIENTS:-python node rust} == *$1* ]]; }

if wants python; then
  say "python: fresh venv, pip install ./clients/python"
  python3 -m venv "$CLIENTS_WORK/venv"
  "$CLIENTS_WORK/venv/bin/pip" install --quiet --disable-pip-version-check ./clients/python pytest mypy
  "$CLIENTS_WORK/venv/bin/python" -c 'import redis, zkit; print("test-clients: python: redis-py", redis.__version__, "zkit from", zkit.__file__)'
  say "python: mypy on the package and the examples"
  (cd clients/python && "$CLIENTS_WORK/venv/bin/mypy" --cache-dir "$CLIENTS_WORK/mypy-cache" src/zkit examples)
  run_suite python
fi

if wants node; then
  say "node: npm pack ./clients/node, then npm install of the tarball in a fresh folder"
  (cd clients/node && npm ci --silent --no-audit --no-fund && npm pack --silent --pack-destination "$CLIENTS_WORK" >/dev/null)
  mkdir "$CLIENTS_WORK/node-app"
  cp -r clients/node/test clients/node/examples "$CLIENTS_WORK/node-app/"
  (
    cd "$CLIENTS_WORK/node-app"
    npm init -y >/dev/null
    npm install --silent --no-audit --no-fund "$CLIENTS_WORK"/zkit-*.tgz ioredis redis
    echo "test-clients: node: $(node -p '`ioredis ${require("ioredis/package.json").version}, redis ${require("redis/package.json").version}`')"
    echo "test-clients: node: tsc --strict on a typed use of the installed .d.ts"
    npm install --silent --no-audit --no-fund --no-save typescript@~5.9.3 @types/node@^20.19.0
    npx tsc --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --skipLibCheck test/types.ts
  )
  run_suite node
fi

if wants rust; then
  say "rust: cargo test in clients/rust (its own workspace, Cargo.lock as committed)"
  (cd clients/rust && cargo test --locked --quiet --no-run)
  run_suite rust
fi

say "docs example blocks"
python3 scripts/check-doc-includes.py
say "all passed"
