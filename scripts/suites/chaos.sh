#!/usr/bin/env bash
# make chaos: exactly-once gifts (IDMP), leased tasks and stepped merges
# on a 3-master cluster with one replica each, with the release module,
# while a seeded schedule SIGKILLs masters, runs CLUSTER FAILOVER and moves
# the busiest slot (tests/integration/chaos.rs says what is checked). Runs on Debian's
# Redis and on Valkey 9 (scripts/lib.sh, server_binary).
# CHAOS_SEED picks another reproducible schedule; CHAOS_SERVERS (default
# "redis-7.0 valkey-9.1") the servers; ZKIT_MODULE the module (default: the
# release build, built if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

export ZKIT_MODULE
ZKIT_MODULE=$(release_module)
cargo test --no-run --test integration -q
status=0
for key in ${CHAOS_SERVERS:-redis-7.0 valkey-9.1}; do
  REDIS_SERVER=$(server_binary "$key") cargo test -q --test integration chaos:: -- --ignored --nocapture ||
    status=1
done
exit $status
