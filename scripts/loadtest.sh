#!/usr/bin/env bash
# One command for a load run: builds Parley and parley-loadtest (release, in .build-release),
# starts the server on spare ports with a throw-away data folder, runs the scenario against it,
# stops the server. The report (table, loadtest-results/<scenario>.json and .svg) is the harness's.
# usage: scripts/loadtest.sh calls --calls 50 --duration 60 --compare-reference
#        scripts/loadtest.sh chat --users 1000 --rate 1000 --duration 30
#        scripts/loadtest.sh idle --users 10000                  (resident memory with 10 000 idle sockets)
#        scripts/loadtest.sh idle --users 2000 --invites 1000    (invite → call.incoming latency)
# env: PARLEY_BIN (a folder with built `parley` and `parley-loadtest`: skips the build),
#      LOADTEST_OUT (default loadtest-results), LOADTEST_HTTP_PORT, LOADTEST_MEDIA_PORT
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/loadtest.sh calls|chat|idle [parley-loadtest options]"; exit 2; }
bin=${PARLEY_BIN:-}
if [ -z "$bin" ]; then
    scripts/install-deps.sh
    swift build -c release --product parley --scratch-path .build-release
    swift build -c release --product parley-loadtest --scratch-path .build-release
    bin=.build-release/release
fi
work=$(mktemp -d)
http_port=${LOADTEST_HTTP_PORT:-18282}
media_port=${LOADTEST_MEDIA_PORT:-51282}
token="load-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
ulimit -n 65536 2>/dev/null || true

HTTP_PORT=$http_port MEDIA_PORT=$media_port MEDIA_ANNOUNCED_ADDRESSES=::1 DATA_DIRECTORY="$work/data" ADMIN_TOKEN="$token" AUTH_BCRYPT_COST=4 \
    LIMITS_MESSAGES_PER_MINUTE=${LIMITS_MESSAGES_PER_MINUTE:-1000000} LIMITS_CALL_INVITES_PER_MINUTE=${LIMITS_CALL_INVITES_PER_MINUTE:-1000000} \
    LOG_LEVEL=${LOG_LEVEL:-warning} "$bin/parley" --config config/parley.yaml > "$work/server.log" 2>&1 &
server=$!
disown $server
trap 'kill -9 $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 150); do
    curl -fs "http://127.0.0.1:$http_port/health" > /dev/null && break
    kill -0 $server 2>/dev/null || { cat "$work/server.log"; echo "loadtest: the server did not start"; exit 1; }
    sleep 0.2
done
scenario=$1; shift
"$bin/parley-loadtest" "$scenario" --server "http://127.0.0.1:$http_port" --admin-token "$token" \
    --out "${LOADTEST_OUT:-loadtest-results}" "$@"
