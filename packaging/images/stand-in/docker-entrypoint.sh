#!/bin/sh
# CI only: the entrypoint of a stand-in for an official server image
# (scripts/release/images.sh builds the stand-ins from Debian's packages, since no
# image registry is reachable where CI runs). It keeps the conventions the
# official images document and zkit's image relies on, nothing more:
#   - no arguments, an option first or a *.conf first: run the server;
#   - started as root with the server: own the data folder (/data) by the
#     server's user and re-run as that user (uid 999) with setpriv;
#   - umask 0077 for the server's files;
#   - the official builds compile protected mode off; Debian's servers here
#     get --protected-mode no instead, after the config file if any;
#   - Redis 8 images load every module in /usr/local/lib/redis/modules.
# STANDIN_SERVER (redis or valkey) says which server the image runs.
set -e
name=$STANDIN_SERVER
server=$name-server

if [ $# -eq 0 ] || [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- "$server" "$@"
fi
if [ "$1" != "$server" ]; then
  exec "$@"
fi

if [ "$(id -u)" = 0 ]; then
  find . \! -user "$name" -exec chown "$name" '{}' +
  exec setpriv --reuid="$name" --regid="$name" --clear-groups -- "$0" "$@"
fi
if [ "$(umask)" = 0022 ]; then
  umask 0077
fi

shift
config=
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  config=$1
  shift
fi
modules=
if [ -d /usr/local/lib/redis/modules ]; then
  for module in /usr/local/lib/redis/modules/*.so; do
    [ -f "$module" ] && modules="$modules --loadmodule $module"
  done
fi
# shellcheck disable=SC2086 # $modules: words, paths without spaces
exec "$server" ${config:+"$config"} --protected-mode no $modules "$@"
