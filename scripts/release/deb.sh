#!/usr/bin/env bash
# Builds zkit's Debian package for one architecture from a stripped module
# (called by scripts/release/dist.sh; scripts/release/deb-check.sh reads the result):
#   /usr/lib/redis/modules/zkit.so     the module
#   /etc/redis/modules.d/zkit.conf     a commented loadmodule line (a conffile)
#   /usr/share/zkit/zkit.lua           the Functions library (FUNCTION LOAD
#                                      on servers that refuse modules)
#   /usr/share/zkit/observe/           observe/: the redis_exporter script,
#                                      the Prometheus scrape job, the alert
#                                      rules and their tests, the Grafana
#                                      dashboard (docs/observe.md)
#   /usr/share/doc/zkit/               README.Debian (how to enable it),
#                                      README.md, changelog, copyright
# Entries are owned by root and dated at the last commit, so the same
# commit builds the same package.
#
#   scripts/release/deb.sh MODULE ARCH VERSION EPOCH OUT.deb    (ARCH as Rust spells it)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

module=$1 arch=$2 version=$3 epoch=$4 out=$5
root=$(mktemp -d)
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT

# Executable: Redis 7 refuses to load a module file without execute permission.
install -D -m 755 "$module" "$root/usr/lib/redis/modules/zkit.so"
install -D -m 644 packaging/deb/zkit.conf "$root/etc/redis/modules.d/zkit.conf"
install -D -m 644 functions/zkit.lua "$root/usr/share/zkit/zkit.lua"
while read -r file; do
  install -D -m 644 "$file" "$root/usr/share/zkit/$file"
done < <(dist_observe_files)
doc=$root/usr/share/doc/zkit
install -D -m 644 packaging/deb/README.Debian "$doc/README.Debian"
install -m 644 README.md "$doc/README.md"
install -m 644 LICENSE "$doc/copyright"
gzip -9n <CHANGELOG.md >"$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"

mkdir -p "$root/DEBIAN"
echo /etc/redis/modules.d/zkit.conf >"$root/DEBIAN/conffiles"
cat >"$root/DEBIAN/control" <<CONTROL
Package: zkit
Version: $version
Architecture: $(deb_arch "$arch")
Maintainer: zkit maintainers <zkit@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: libc6 (>= $dist_glibc)
Recommends: redis-server (>= 5:7.0) | valkey-server
Section: database
Priority: optional
Description: composite-score commands on native Redis sorted sets
 zkit is a Redis/Valkey module for leaderboards with first-come ties
 (RANK), cursor-paged feeds (FEED), voting (VOTE), a delayed-task queue with
 leases (DELAY), exact sliding-window rate limits (RATE) and recently viewed
 lists (RECENT), all on plain sorted sets any server reads.
 .
 The module is installed but not loaded: see
 /usr/share/doc/zkit/README.Debian.
CONTROL
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles"
find "$root" -depth -exec touch -h -d "@$epoch" {} +
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
