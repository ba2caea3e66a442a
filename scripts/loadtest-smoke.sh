#!/usr/bin/env bash
# The load-test harness's smoke run, part of the test command: starts the built `parley` on spare
# ports with a throw-away data folder, then runs `parley-loadtest` with a few calls and a little
# chat and fails unless every call carried checked media with zero decode failures and bounded
# loss, and every message was acknowledged and delivered.
# usage: scripts/loadtest-smoke.sh [build folder, default .build/debug]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/debug}
work=$(mktemp -d)
http_port=${SMOKE_HTTP_PORT:-18181}
media_port=${SMOKE_MEDIA_PORT:-51181}
token="smoke-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"

HTTP_PORT=$http_port MEDIA_PORT=$media_port DATA_DIRECTORY="$work/data" ADMIN_TOKEN="$token" AUTH_BCRYPTCOST=4 \
    "$bin/parley" --config config/parley.yaml > "$work/server.log" 2>&1 &
server=$!
disown $server
trap 'kill -9 $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$http_port/health" > /dev/null && break
    kill -0 $server 2>/dev/null || { cat "$work/server.log"; echo "loadtest-smoke: the server did not start"; exit 1; }
    sleep 0.2
done

common=(--server "http://127.0.0.1:$http_port" --admin-token "$token" --out "$work/results")
echo "loadtest-smoke: 3 video calls for 5 s"
"$bin/parley-loadtest" calls "${common[@]}" --calls 3 --duration 5 --ramp 3 --decoding-calls 1 \
    --max-loss-percent 2 --max-decode-failures 0 --require-all-calls
echo "loadtest-smoke: chat, 12 users at 60 msg/s for 3 s"
"$bin/parley-loadtest" chat "${common[@]}" --users 12 --rate 60 --duration 3 --group-size 4 --require-all-delivered
for file in calls.json calls.svg chat.json chat.svg; do
    [ -s "$work/results/$file" ] || { echo "loadtest-smoke: $file was not written"; exit 1; }
done
echo "loadtest-smoke: passed"
