#!/usr/bin/env bash
# make bench-readme: puts the latest `make bench` run into README's Benchmarks
# section: .bench/table.md goes between the bench markers (what was there is
# replaced), and .bench/sweep.png becomes docs/bench-sweep.png, which README
# shows. So README says exactly what one run measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
table=$root/.bench/table.md plot=$root/.bench/sweep.png readme=$root/README.md
begin='<!-- bench:begin (make bench-readme writes this part from .bench/table.md) -->'
end='<!-- bench:end -->'
[[ -f $table ]] || { echo "bench-readme: no $table: run make bench first" >&2; exit 1; }
grep -qxF "$begin" "$readme" && grep -qxF "$end" "$readme" ||
  { echo "bench-readme: README.md lacks the bench markers" >&2; exit 1; }
awk -v begin="$begin" -v end="$end" -v table="$table" '
  $0 == begin { print; while ((getline line < table) > 0) print line; skipping = 1; next }
  $0 == end { skipping = 0 }
  !skipping { print }' "$readme" >"$readme.tmp"
mv "$readme.tmp" "$readme"
if [[ -f $plot ]]; then cp "$plot" "$root/docs/bench-sweep.png"; fi
echo "bench-readme: README.md updated from $table${plot:+ and docs/bench-sweep.png}" >&2
