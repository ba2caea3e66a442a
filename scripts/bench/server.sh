# Sourced by the search benchmarks: a fresh `parley` of a release build in a temporary folder.
# Sets bin, work, token and port (BENCH_HTTP_PORT, else the caller's `default_port`); `start` runs
# the server and waits for /health, `stop` ends it; both it and the folder go at exit.
bin=${PARLEY_BIN:-.build-release/release}
[ -x "$bin/parley" ] || { echo "no parley in $bin: build it (swift build -c release --product parley) or set PARLEY_BIN"; exit 1; }
work=$(mktemp -d)
port=${BENCH_HTTP_PORT:-$default_port}
token="bench-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
server=
stop() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; server=; }
trap 'stop; rm -rf "$work"' EXIT
start() {
    # One viewer's queries stand for many users' here: no per-user request budget.
    HTTP_PORT=$port MEDIA_PORT=$((port + 33000)) DATA_DIRECTORY="$work/data" ADMIN_TOKEN="$token" AUTH_BCRYPT_COST=4 \
        LIMITS_REQUESTS_PER_SECOND=0 LOG_LEVEL=warning "$bin/parley" --config config/parley.yaml >> "$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 300); do
        curl -fs "http://127.0.0.1:$port/health" > /dev/null && return
        kill -0 $server 2>/dev/null || { cat "$work/server.log"; echo "bench: the server did not start"; exit 1; }
        sleep 0.2
    done
    echo "bench: the server did not answer"; exit 1
}
