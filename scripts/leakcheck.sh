#!/usr/bin/env bash
# make leakcheck: runs the integration workload (tests/integration/fuzz.rs,
# leakcheck_workload: every registered family's writes, reads, errors, MULTI
# and Lua, and 20 MODULE UNLOAD / MODULE LOAD cycles) against a server under
# valgrind, and fails on a definite leak in zkit code. Nothing is suppressed:
# zkit allocates nothing at load that its unload does not free. LEAK_SERVER
# picks the server binary (default: redis-server).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
  sudo=(); ((EUID == 0)) || sudo=(sudo)
  echo "leakcheck: installing valgrind with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q valgrind >/dev/null ||
    { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q valgrind >/dev/null; }
fi

server=${LEAK_SERVER:-redis-server}
work=$PWD/.leakcheck
rm -rf "$work"
mkdir -p "$work"
cat >"$work/server" <<WRAP
#!/usr/bin/env bash
exec valgrind --leak-check=full --errors-for-leak-kinds=definite \
  --show-leak-kinds=definite --num-callers=40 --keep-debuginfo=yes \
  --log-file=$work/valgrind.%p.log "$server" "\$@"
WRAP
chmod +x "$work/server"

cargo build --lib
echo "leakcheck: workload against $server under valgrind" >&2
REDIS_SERVER=$work/server cargo test --test integration fuzz::leakcheck_workload -- --include-ignored --exact

shopt -s nullglob
logs=("$work"/valgrind.*.log)
if ((${#logs[@]} == 0)); then
  echo "leakcheck: valgrind wrote no report" >&2
  exit 1
fi
status=0
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
((status == 0)) && echo "leakcheck: no definite leak in zkit code" >&2
exit $status
