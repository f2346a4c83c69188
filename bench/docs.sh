#!/usr/bin/env bash
# make bench-docs: puts the latest `make bench` run into docs/benchmarks.md:
# .bench/table.md goes between the bench markers (what was there is
# replaced), and .bench/sweep.png becomes docs/bench-sweep.png, which the page
# shows. So the page says exactly what one run measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
table=$root/.bench/table.md plot=$root/.bench/sweep.png page=$root/docs/benchmarks.md
begin='<!-- bench:begin (make bench-docs writes this part from .bench/table.md) -->'
end='<!-- bench:end -->'
[[ -f $table ]] || { echo "bench-docs: no $table: run make bench first" >&2; exit 1; }
{ grep -qxF "$begin" "$page" && grep -qxF "$end" "$page"; } ||
  { echo "bench-docs: docs/benchmarks.md lacks the bench markers" >&2; exit 1; }
awk -v begin="$begin" -v end="$end" -v table="$table" '
  $0 == begin { print; while ((getline line < table) > 0) print line; skipping = 1; next }
  $0 == end { skipping = 0 }
  !skipping { print }' "$page" >"$page.tmp"
mv "$page.tmp" "$page"
if [[ -f $plot ]]; then cp "$plot" "$root/docs/bench-sweep.png"; fi
echo "bench-docs: docs/benchmarks.md updated from $table${plot:+ and docs/bench-sweep.png}" >&2
