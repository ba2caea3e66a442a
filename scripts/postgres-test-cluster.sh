#!/usr/bin/env bash
# A private PostgreSQL for the tests: Debian's `postgresql` (15) installed if missing, a cluster
# made with initdb in a temporary folder and started with pg_ctl on 127.0.0.1 and a free port.
# PostgreSQL refuses to run as root, so as root (CI) the cluster belongs to the `postgres` user
# the package creates; as anyone else, to them.
#
#   eval "$(scripts/postgres-test-cluster.sh start)"   # exports PARLEY_TEST_POSTGRES_URL and PARLEY_TEST_POSTGRES_DIR
#   scripts/postgres-test-cluster.sh stop "$PARLEY_TEST_POSTGRES_DIR"
#
# Durability is off (fsync, synchronous_commit): these databases live for one test run.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
start)
  scripts/install-deps.sh postgresql >&2
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -x "$bin/initdb" ] || { echo "postgres-test-cluster: no initdb under /usr/lib/postgresql" >&2; exit 1; }
  dir=$(mktemp -d "${TMPDIR:-/tmp}/parley-pg-XXXXXX")
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
    as=(runuser -u postgres --)
    user=postgres
  else
    user=$(id -un)
  fi
  "${as[@]}" "$bin/initdb" -D "$dir/data" -U "$user" -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  options="-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=1000 -c shared_buffers=128MB"
  # More server options for a diagnosis, e.g. "-c shared_preload_libraries=pg_stat_statements".
  options+=" ${PARLEY_TEST_POSTGRES_OPTIONS:-}"
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$options" -w -t 60 start >&2 \
    || { cat "$dir/server.log" >&2; exit 1; }
  echo "export PARLEY_TEST_POSTGRES_URL=postgres://$user@127.0.0.1:$port/postgres"
  echo "export PARLEY_TEST_POSTGRES_DIR=$dir"
  ;;
stop)
  dir=${2:?usage: postgres-test-cluster.sh stop DIR}
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  as=()
  [ "$(id -u)" -eq 0 ] && as=(runuser -u postgres --)
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start | stop DIR" >&2
  exit 2
  ;;
esac
