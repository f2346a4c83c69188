#!/usr/bin/env bash
# make observe-check: what docs/observe.md ships, checked on real servers.
#   1. The alert rules: promtool check rules, promtool test rules (the unit
#      tests in observe/zkit-alerts.test.yml), promtool check config on the
#      scrape config.
#   2. The metrics path (scripts/suites/observe-check.py): the exporter's copy of
#      functions/zkit.lua current; Debian's prometheus-redis-exporter with
#      observe/zkit-exporter.lua scraping a master and a replica with the
#      release module and a master with the Functions library only, 100,000
#      keys and a two-master cluster scraped across passes, then Prometheus
#      with observe/prometheus-zkit.yml: the per-queue lag in /metrics, every
#      per-key value equal to its stats command's, each key once and within
#      the stated scrapes, every metric the dashboard and the rules name
#      scraped, every panel with data, no alert that needs history firing.
#   3. The console (console/): npm ci, then its browser tests in Debian's
#      headless Chromium against a server and a cluster, read-only and
#      writable, a server with only the Functions library, and Redis
#      unreachable, refusing the password or failing TLS (certificates made
#      with openssl).
# Prometheus and the exporter are Debian's packages of this machine's
# release, unpacked into ./.observe (scripts/debian-root.sh: nothing is
# installed, no service starts); Chromium and openssl come from apt-get if
# missing (`observe-check.sh fetch` stops there). ZKIT_MODULE picks the
# module (default: the release build).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
started=$SECONDS
stage() { printf 'observe-check: %s (at %d s)\n' "$*" $((SECONDS - started)); }

suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
arch=$(dpkg --print-architecture)
tools=.observe/debian-$suite-$arch
bash scripts/debian-root.sh "$tools" "$suite" "$arch" prometheus prometheus-redis-exporter
bin=$PWD/$tools/usr/bin
command -v chromium >/dev/null || apt_install chromium
command -v openssl >/dev/null || apt_install openssl
for tool in node npm python3 redis-server redis-cli; do
  command -v "$tool" >/dev/null || { echo "observe-check: $tool is missing" >&2; exit 1; }
done
[[ ${1:-} != fetch ]] || exit 0
module=$(release_module)

stage "alert rules: promtool check rules, test rules, check config"
"$bin/promtool" check rules observe/zkit-alerts.yml
(cd observe && "$bin/promtool" test rules zkit-alerts.test.yml)
"$bin/promtool" check config observe/prometheus-zkit.yml

stage "metrics: redis_exporter with zkit-exporter.lua, then Prometheus"
python3 scripts/suites/observe-check.py --tools "$bin" --module "$module"

stage "console: the Node client, npm ci, browser tests in headless Chromium"
(cd clients/node && npm ci --silent --no-audit --no-fund && npx --no-install tsc)
(cd console && npm ci --silent --no-audit --no-fund)
(cd console && ZKIT_MODULE=$module npm test --silent)
stage "passed"
