#!/usr/bin/env bash
# make deb-check: the Debian packages `make dist` built, as an ops team uses
# them. For each architecture: the checksum matches; the control fields name
# the package, version and Debian architecture; the package holds exactly the
# files scripts/release/deb.sh installs, owned by root; its module is the tarball's,
# byte for byte, built for the package's architecture; its observe/ files
# (/usr/share/zkit/observe) are the tree's; its loadmodule snippet is
# commented out (installing loads nothing).
# Then, on this machine (amd64, as root): `dpkg -i` installs the amd64
# package, Debian's redis-server starts with the installed snippet enabled as
# README.Debian says (the loadmodule line uncommented, the snippet included
# from a server config) and answers RANK.GIFT; Debian's
# prometheus-redis-exporter (unpacked into .deb-check, not installed) runs
# the installed exporter script as docs/observe.md says and exports
# zkit_module_loaded 1; `dpkg --purge` removes every file again. A zkit
# package installed before the check is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh

version=$(dist_version)
work=$(mktemp -d)
server_pid='' exporter_pid=''
cleanup() {
  [[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true
  [[ -z $exporter_pid ]] || kill "$exporter_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

installed_files=(
  ./etc/redis/modules.d/zkit.conf
  ./usr/lib/redis/modules/zkit.so
  ./usr/share/doc/zkit/README.Debian
  ./usr/share/doc/zkit/README.md
  ./usr/share/doc/zkit/changelog.gz
  ./usr/share/doc/zkit/copyright
  ./usr/share/zkit/zkit.lua
)
mapfile -t observe < <(dist_observe_files)
installed_files+=("${observe[@]/#/./usr/share/zkit/}")

# Checks one architecture's package; prints what is wrong and returns 1.
check() { # arch
  local arch=$1 deb name field want files owners module machine
  deb=$(dist_deb "$version" "$arch")
  name=$(basename "$deb")
  [[ -f $deb && -f $deb.sha256 ]] || { echo "$deb or its .sha256 is missing (make dist)"; return 1; }
  (cd dist && sha256sum --quiet -c "$name.sha256" >/dev/null 2>&1) || { echo "checksum mismatch"; return 1; }
  for field in Package:zkit Version:"$version" Architecture:"$(deb_arch "$arch")" Depends:"libc6 (>= $dist_glibc)"; do
    want=${field#*:}
    [[ $(dpkg-deb -f "$deb" "${field%%:*}") == "$want" ]] ||
      { echo "${field%%:*} is '$(dpkg-deb -f "$deb" "${field%%:*}")', want '$want'"; return 1; }
  done
  files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sort)
  [[ $files == "$(printf '%s\n' "${installed_files[@]}" | sort)" ]] ||
    { echo "holds [${files//$'\n'/ }], want [${installed_files[*]}]"; return 1; }
  owners=$(dpkg-deb -c "$deb" | awk '{ print $2 }' | sort -u)
  [[ $owners == root/root ]] || { echo "entries owned by [${owners//$'\n'/ }], want root/root"; return 1; }
  [[ $(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles) == /etc/redis/modules.d/zkit.conf ]] ||
    { echo "the snippet is not a conffile"; return 1; }

  dpkg-deb -x "$deb" "$work/$arch"
  module=$(dist_unpack "$version" "$arch" "$work/$arch-tarball")
  cmp -s "$module" "$work/$arch/usr/lib/redis/modules/zkit.so" ||
    { echo "its module differs from the tarball's"; return 1; }
  for file in "${observe[@]}"; do
    cmp -s "$file" "$work/$arch/usr/share/zkit/$file" || { echo "its /usr/share/zkit/$file differs from the tree's"; return 1; }
  done
  machine=$(readelf -h "$work/$arch/usr/lib/redis/modules/zkit.so" | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }')
  case $arch in
    x86_64) [[ $machine == *X86-64* ]] ;;
    aarch64) [[ $machine == AArch64 ]] ;;
  esac || { echo "its module is built for '$machine'"; return 1; }
  [[ $(dpkg-deb -c "$deb" | awk '$6 == "./" { print $1 }') == drwxr-xr-x ]] ||
    { echo "its top folder is not drwxr-xr-x"; return 1; }
  grep -qx '# loadmodule /usr/lib/redis/modules/zkit.so' "$work/$arch/etc/redis/modules.d/zkit.conf" ||
    { echo "the snippet lacks the commented loadmodule line"; return 1; }
  ! grep -q '^[[:space:]]*loadmodule' "$work/$arch/etc/redis/modules.d/zkit.conf" ||
    { echo "the snippet loads the module without being asked to"; return 1; }
  echo "ok: $(deb_arch "$arch"), ${#installed_files[@]} files, $(($(stat -c %s "$deb") / 1024)) KiB, module as in the tarball, observe/ as in the tree"
}

status=0
for arch in "${dist_arches[@]}"; do
  if result=$(check "$arch"); then
    echo "deb-check: $(basename "$(dist_deb "$version" "$arch")"): $result" >&2
  else
    echo "deb-check: $(basename "$(dist_deb "$version" "$arch")"): FAIL: $result" >&2
    status=1
  fi
done
((status == 0)) || exit 1

# Install, serve, remove, on this machine.
if [[ $(dpkg --print-architecture) != amd64 || $EUID != 0 ]]; then
  echo "deb-check: FAIL: installing the package needs root on an amd64 Debian machine" >&2
  exit 1
fi
if dpkg-query -W -f '${Status}' zkit 2>/dev/null | grep -q 'install ok installed'; then
  echo "deb-check: FAIL: a zkit package is installed already; remove it (dpkg --purge zkit) to run this check" >&2
  exit 1
fi
{ command -v redis-server >/dev/null && command -v redis-cli >/dev/null; } || apt_install redis-server redis-tools
command -v curl >/dev/null || apt_install curl
# The exporter docs/observe.md runs: Debian's, of this machine's release.
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
exporter_root=.observe/deb-check-$suite-amd64
bash scripts/debian-root.sh "$exporter_root" "$suite" amd64 prometheus-redis-exporter
exporter=$PWD/$exporter_root/usr/bin/prometheus-redis-exporter
deb=$(dist_deb "$version" x86_64)
trap 'dpkg --purge zkit >/dev/null 2>&1 || true; cleanup' EXIT
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { echo "deb-check: FAIL: dpkg -i $deb:" >&2; cat "$work/dpkg.log" >&2; exit 1; }
[[ -f /usr/lib/redis/modules/zkit.so && -f /etc/redis/modules.d/zkit.conf ]] ||
  { echo "deb-check: FAIL: dpkg -i did not install the module and snippet" >&2; exit 1; }

# The snippet enabled as README.Debian says, included from a server config.
sed 's/^# loadmodule /loadmodule /' /etc/redis/modules.d/zkit.conf >"$work/zkit.conf"
port=$(free_port)
cat >"$work/redis.conf" <<CONF
bind 127.0.0.1
port $port
dir $work
save ""
include $work/zkit.conf
CONF
redis-server "$work/redis.conf" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 200); do
  redis-cli -p "$port" PING 2>/dev/null | grep -q PONG && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
redis-cli -p "$port" PING 2>/dev/null | grep -q PONG ||
  { echo "deb-check: FAIL: redis-server with the package's snippet did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
modules=$(redis-cli -p "$port" MODULE LIST)
grep -qx zkit <<<"$modules" || { echo "deb-check: FAIL: MODULE LIST says [${modules//$'\n'/ }]" >&2; exit 1; }
grep -qx /usr/lib/redis/modules/zkit.so <<<"$modules" ||
  { echo "deb-check: FAIL: the module was not loaded from /usr/lib/redis/modules: [${modules//$'\n'/ }]" >&2; exit 1; }
gift=$(redis-cli -p "$port" RANK.GIFT board alice 10 | paste -sd' ')
[[ $gift == "10 1" ]] || { echo "deb-check: FAIL: RANK.GIFT board alice 10 answered '$gift', want '10 1'" >&2; exit 1; }
top=$(redis-cli -p "$port" RANK.TOP board 1 | paste -sd' ')
[[ $top == "1 alice 10" ]] || { echo "deb-check: FAIL: RANK.TOP board 1 answered [$top]" >&2; exit 1; }

# The exporter script where the package puts it, run as docs/observe.md says
# (on a port of its own rather than 9121).
exporter_port=$(free_port)
"$exporter" --redis.addr "redis://127.0.0.1:$port" --script /usr/share/zkit/observe/zkit-exporter.lua \
  --web.listen-address "127.0.0.1:$exporter_port" >"$work/exporter.log" 2>&1 &
exporter_pid=$!
loaded='redis_script_values{key="zkit_module_loaded"} 1'
deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
  curl -fsS "http://127.0.0.1:$exporter_port/metrics" >"$work/metrics" 2>/dev/null && grep -qxF "$loaded" "$work/metrics" && break
  kill -0 "$exporter_pid" 2>/dev/null || break
  sleep 0.1
done
grep -qxF "$loaded" "$work/metrics" 2>/dev/null || {
  echo "deb-check: FAIL: prometheus-redis-exporter --script /usr/share/zkit/observe/zkit-exporter.lua exported no '$loaded'; its log:" >&2
  cat "$work/exporter.log" >&2
  exit 1
}
kill "$exporter_pid"
wait "$exporter_pid" 2>/dev/null || true
exporter_pid=
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=

dpkg --purge zkit >"$work/dpkg.log" 2>&1 || { echo "deb-check: FAIL: dpkg --purge zkit:" >&2; cat "$work/dpkg.log" >&2; exit 1; }
for file in "${installed_files[@]}"; do
  [[ ! -e ${file#.} ]] || { echo "deb-check: FAIL: $file is left after dpkg --purge" >&2; exit 1; }
done
echo "deb-check: $(basename "$deb") installed with dpkg -i, redis-server $(redis-server --version | grep -o 'v=[0-9.]*' | cut -d= -f2) loaded it from the snippet, RANK.GIFT answered [$gift], RANK.TOP [$top], the exporter ran its observe/zkit-exporter.lua, purged clean" >&2
