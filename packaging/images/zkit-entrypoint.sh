#!/bin/bash
# zkit's entrypoint: puts `--loadmodule zkit.so` and zkit's configs into the
# server's arguments, then hands over to the base image's own
# docker-entrypoint.sh, which drops to the server's user and applies the
# base's own conventions (REDIS_PASSWORD, VALKEY_EXTRA_FLAGS, ...).
#
#   (no arguments)          the server, as the base image starts it
#   --maxmemory 1gb ...     the server with these arguments
#   /etc/redis.conf ...     the server with this config file (first), then
#                           the other arguments
#   redis-cli, sh, ...      run as given, without zkit
#
# ZKIT_ARGS: zkit's configs as pairs, "small-set-max 64 idmp-retain-ms
# 3600000" (the zkit. prefix is optional), passed as --zkit.<name> <value>.
set -euo pipefail

module=/usr/local/lib/zkit/zkit.so

# The base's server: Valkey images may carry redis-* names as links too.
server=redis-server
command -v valkey-server >/dev/null 2>&1 && server=valkey-server

# As the official entrypoints read their arguments: none, an option or a
# config file all mean the server.
if (($# == 0)) || [[ $1 == -* || $1 == *.conf ]]; then
  set -- "$server" "$@"
fi

case $(basename "$1") in
  redis-server | valkey-server) ;;
  *) exec docker-entrypoint.sh "$@" ;;
esac

head=("$1")
shift
# A config file must stay the server's first argument.
if (($#)) && [[ $1 != -* ]]; then
  head+=("$1")
  shift
fi

configs=()
read -r -a words <<<"${ZKIT_ARGS:-}"
if ((${#words[@]} % 2)); then
  echo "zkit-entrypoint: ZKIT_ARGS must hold name value pairs, got: ${ZKIT_ARGS}" >&2
  exit 2
fi
for ((i = 0; i < ${#words[@]}; i += 2)); do
  configs+=("--zkit.${words[i]#zkit.}" "${words[i + 1]}")
done

exec docker-entrypoint.sh "${head[@]}" --loadmodule "$module" "${configs[@]}" "$@"
