#!/usr/bin/env bash
# make leakcheck: runs the integration workload (tests/integration/fuzz.rs,
# leakcheck_workload: every registered family's writes, reads, errors, MULTI
# and Lua, and 20 MODULE UNLOAD / MODULE LOAD cycles) against a server under
# valgrind, and fails on a definite leak in zkit code. Nothing is suppressed:
# zkit allocates nothing at load that its unload does not free. Runs on
# Debian's Redis and on Valkey 9, which unloads modules at shutdown and so
# also checks zkit's teardown (LEAK_SERVERS, keys of scripts/lib.sh's
# server_binary; default "redis-7.0 valkey-9.1"); LEAK_SERVER=binary runs
# that one binary instead. The module is the debug build (`cargo build`).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

command -v valgrind >/dev/null || apt_install valgrind

servers=()
if [[ -n ${LEAK_SERVER:-} ]]; then
  servers=("$LEAK_SERVER")
else
  for key in ${LEAK_SERVERS:-redis-7.0 valkey-9.1}; do servers+=("$(server_binary "$key")"); done
fi
[[ ${1:-} != fetch ]] || exit 0
cargo build --lib
cargo test --no-run --test integration -q

# Runs the workload on one server under valgrind and reads the reports.
check() { # server work
  local server=$1 work=$2 logs log zkit_leaks status=0
  rm -rf "$work"
  mkdir -p "$work"
  wrapper "$work/server" <<WRAP
exec valgrind --leak-check=full --errors-for-leak-kinds=definite \\
  --show-leak-kinds=definite --num-callers=40 --keep-debuginfo=yes \\
  --log-file=$work/valgrind.%p.log "$server" "\$@"
WRAP
  echo "leakcheck: workload against $server under valgrind" >&2
  REDIS_SERVER=$work/server cargo test -q --test integration fuzz::leakcheck_workload -- --include-ignored --exact ||
    return 1
  shopt -s nullglob
  logs=("$work"/valgrind.*.log)
  if ((${#logs[@]} == 0)); then
    echo "leakcheck: valgrind wrote no report" >&2
    return 1
  fi
  for log in "${logs[@]}"; do
    # A server killed before it could report would pass silently otherwise.
    if ! grep -q "LEAK SUMMARY" "$log" && ! grep -q "All heap blocks were freed" "$log"; then
      echo "leakcheck: $log has no leak summary (server did not exit cleanly)" >&2
      status=1
      continue
    fi
    # Loss records: from "are definitely lost" to the next empty "==pid== " line.
    zkit_leaks=$(awk '
      /are definitely lost in loss record/ { record = $0 "\n"; inside = 1; next }
      inside && /^==[0-9]+== *$/ { if (record ~ /libzkit|zkit::|redis_module::/) printf "%s\n", record; inside = 0; next }
      inside { record = record $0 "\n" }
    ' "$log")
    grep -E "definitely lost:|ERROR SUMMARY" "$log" | sed "s|^|$(basename "$log"): |" >&2
    if [[ -n $zkit_leaks ]]; then
      echo "leakcheck: definite leak in zkit code:" >&2
      echo "$zkit_leaks" >&2
      status=1
    fi
  done
  ((status == 0)) && echo "leakcheck: $server: no definite leak in zkit code" >&2
  return $status
}

status=0
for i in "${!servers[@]}"; do
  check "${servers[$i]}" "$PWD/.leakcheck/$i" || status=1
done
exit $status
