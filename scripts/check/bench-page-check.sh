#!/usr/bin/env bash
# The benchmark page is this code's: docs/benchmarks.md names the commit its
# run measured ("Run of <date>, commit <sha>"), and fails this check once the
# module's code (scripts/lib.sh: module_code) changed after that commit,
# unless the page says why the numbers still hold, in a line
#   <!-- bench:holds-through <sha>: ... -->
# whose visible text below it gives the reason; then the module's code must
# not have changed after <sha>. Either way: rerun `make bench` and `make
# bench-docs`, or add (or move) that note.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
page=docs/benchmarks.md
fail() { echo "bench-page-check: FAILED: $*" >&2; exit 1; }

measured=$(sed -n 's/^Run of [^,]*, commit \([0-9a-f]\{7,40\}\)\b.*/\1/p' "$page" | head -1)
[[ -n $measured ]] || fail "$page names no commit in its 'Run of <date>, commit <sha>' line"
[[ $(sed -n 's/^Run of [^,]*, commit [0-9a-f]*\([^:]*\):.*/\1/p' "$page" | head -1) == "" ]] ||
  fail "$page's run measured a tree with uncommitted module changes: rerun make bench on a commit"
holds=$(sed -n 's/^<!-- bench:holds-through \([0-9a-f]\{7,40\}\):.*/\1/p' "$page" | head -1)
since=${holds:-$measured}
git cat-file -e "$since^{commit}" 2>/dev/null ||
  fail "$page names commit $since, which this clone does not have (a shallow clone?)"
changes=$(git log --format='  %h %s' "$since..HEAD" -- "${module_code[@]}")
if [[ -n $changes ]]; then
  echo "$changes" >&2
  fail "the module's code changed after $since, which $page's numbers are from (above): rerun make bench and make bench-docs, or say in the page why they still hold (<!-- bench:holds-through <sha>: ... -->)"
fi
echo "bench-page-check: $page measured $measured${holds:+, holds through $holds}; the module's code is unchanged since"
