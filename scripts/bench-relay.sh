#!/usr/bin/env bash
# The relay's cost per packet, beside the C reference relay, in one run (a benchmark, not a test).
#
#   scripts/bench-relay.sh [PPS=20000] [SESSIONS=10]
#   COUNT_ALLOCATIONS=0 scripts/bench-relay.sh …   # CPU only, without the malloc counter's own cost
#
# Builds Parley optimised, starts it (pinned to core 0 where there are two), creates a user
# through the admin API, then runs ../shared/peer-bench/echo_bench.py: K aiortc echo calls through
# POST /v1/calls/echo, SRTP AEAD_AES_128_GCM at PPS packets/s of 1200 bytes, CPU µs per echoed
# packet from /proc beside ../shared/reference/run.sh at the same rate. Meanwhile it samples the
# relay's counters and a malloc counter preloaded into Parley, and prints heap allocations per
# forwarded packet over the steady part of the run, beside the reference relay's under the same
# counter (libsrtp on Debian is built on NSS and allocates per packet in both).
set -euo pipefail
cd "$(dirname "$0")/.."
pps=${1:-20000} sessions=${2:-10}
root=$PWD shared=$(cd .. && pwd)/shared
scripts/install-deps.sh gcc
scripts/test-peers.sh
swift build -c release --product parley --scratch-path .build-release
work=$(mktemp -d)
gcc -O2 -shared -fPIC -o "$work/malloc_count.so" scripts/bench/malloc_count.c
http=$((18000 + RANDOM % 1000)) media=$((51000 + RANDOM % 1000)) token=bench-admin-token-$RANDOM$RANDOM
cores=$(nproc)
pin_server="" pin_client=""
if [ "$cores" -ge 2 ]; then pin_server="taskset -c 0" pin_client="taskset -c 1"; fi

preload="$work/malloc_count.so"
[ "${COUNT_ALLOCATIONS:-1}" = 0 ] && preload=""
ADMIN_TOKEN=$token MEDIA_HOST=127.0.0.1 MEDIA_PORT=$media LOG_LEVEL=warning AUTH_BCRYPT_COST=4 \
  MALLOC_COUNT_FILE="$work/mallocs" LD_PRELOAD="$preload" \
  $pin_server .build-release/release/parley --config /nonexistent.yaml --data "$work/data" --port "$http" > "$work/parley.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$http/health" >/dev/null && break; sleep 0.1; done

curl -sf -X POST "http://127.0.0.1:$http/admin/users" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -d '{"count":1,"namePrefix":"bench","password":"bench-password"}' >/dev/null
access=$(curl -sf -X POST "http://127.0.0.1:$http/v1/auth/login" -H 'Content-Type: application/json' \
  -d '{"email":"bench0@parley.test","password":"bench-password"}' | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])')

# Sample once a second: seconds, heap allocations so far, relay packets out so far.
(
  while kill -0 $pid 2>/dev/null; do
    [ -n "$preload" ] && { kill -USR2 $pid 2>/dev/null || true; }
    sleep 0.05
    out=$(curl -sf "http://127.0.0.1:$http/admin/status" -H "Authorization: Bearer $token" \
      | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["relay"]["packetsOut"])' 2>/dev/null || echo 0)
    echo "$(date +%s.%N) $(tail -n 1 "$work/mallocs" 2>/dev/null || echo 0) $out"
    sleep 0.95
  done
) > "$work/samples" &
sampler=$!

$pin_client .venv/bin/python "$shared/peer-bench/echo_bench.py" parley -k "$sessions" -r "$pps" --size 1200 \
  --url "http://127.0.0.1:$http" --token "$access" --relay-pid "$pid" --json "$work/bench.json"
kill $sampler 2>/dev/null || true

[ -z "$preload" ] && exit 0
# Allocations per forwarded packet, over the seconds in which the relay forwarded most.
.venv/bin/python - "$work/samples" <<'PY'
import sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 3]
deltas = [(b[2] - a[2], b[1] - a[1]) for a, b in zip(rows, rows[1:])]
busy = [d for d in deltas if d[0] > 0]
if not busy:
    print("allocations: no forwarding seen"); sys.exit()
peak = max(p for p, _ in busy)
steady = [d for d in busy if d[0] >= 0.9 * peak]
packets = sum(p for p, _ in steady); allocs = sum(a for _, a in steady)
print(f"allocations: {allocs:.0f} heap allocations over {packets:.0f} forwarded packets in {len(steady)} steady seconds "
      f"= {allocs / packets:.3f} per packet (whole process: libsrtp on NSS and HTTP sampling included)")
PY

# The reference relay's allocations per packet under the same counter, at the same rate.
ref=$(ls -t "${TMPDIR:-/tmp}"/relay_ref-* 2>/dev/null | head -n 1 || true)
if [ -n "$ref" ]; then
  port=$((47300 + RANDOM % 500))
  "$ref" sink --listen $((port + 1)) --gcm > "$work/ref-sink" & sink=$!
  MALLOC_COUNT_FILE="$work/ref-mallocs" LD_PRELOAD="$work/malloc_count.so" "$ref" relay --listen $port --to $((port + 1)) --gcm > "$work/ref-relay" &
  relay=$!
  sleep 0.3
  "$ref" gen --to $port --pps "$pps" --size 1200 --seconds 5 --streams 200 --gcm > /dev/null
  wait $relay || true
  kill $sink 2>/dev/null || true
  forwarded=$(sed -n 's/.*fwd=\([0-9]*\).*/\1/p' "$work/ref-relay")
  allocs=$(tail -n 1 "$work/ref-mallocs")
  .venv/bin/python -c "print(f'reference allocations: {$allocs} over {$forwarded} forwarded packets = {$allocs / max($forwarded, 1):.3f} per packet (whole process)')"
fi
