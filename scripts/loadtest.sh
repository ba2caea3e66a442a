#!/usr/bin/env bash
# One command for a load run: builds Parley and parley-loadtest (release, in .build-release),
# starts the server on spare ports with a throw-away data folder, runs the scenario against it,
# stops the server. The report (table, loadtest-results/<scenario>.json and .svg) is the harness's.
# usage: scripts/loadtest.sh calls --calls 50 --duration 60 --compare-reference
#        scripts/loadtest.sh chat --users 1000 --rate 1000 --duration 30
#        scripts/loadtest.sh idle --users 10000                  (resident memory with 10 000 idle sockets)
#        scripts/loadtest.sh idle --users 2000 --invites 1000    (invite → call.incoming latency)
#        scripts/loadtest.sh calls --calls 20 --netem "delay 40ms 10ms loss 2%"   (or --netem lte: an impaired link)
#        scripts/loadtest.sh chat --nodes 2 --users 1000 --rate 2000 --duration 30   (two nodes on one PostgreSQL)
# --netem (root, iproute2): the harness runs in a network namespace of its own behind a veth pair
# with tc netem on both ends (scripts/loadtest-netns.sh); the server listens on the pair's address.
# --nodes N (chat): a private PostgreSQL cluster (scripts/postgres-test-cluster.sh: its own folder
# and a free port) and N nodes on it, on consecutive ports from LOADTEST_HTTP_PORT / LOADTEST_MEDIA_PORT,
# each with a data folder of its own and the same token key and admin token; user i on node i % N.
# env: PARLEY_BIN (a folder with built `parley` and `parley-loadtest`: skips the build),
#      LOADTEST_OUT (default loadtest-results), LOADTEST_HTTP_PORT, LOADTEST_MEDIA_PORT (node k
#      takes the port + k of each: the two ranges must not meet, as ICE-TCP listens on the media port),
#      LOADTEST_WARMUP_SECONDS=N (the scenario for N seconds first, unmeasured),
#      LOADTEST_PG_STATEMENTS=FILE (--nodes: PostgreSQL loads pg_stat_statements, and its 25 costliest
#      statements of the run are written to FILE before the cluster stops),
#      LOADTEST_PG_LOG=FILE (--nodes: the cluster's server log is copied to FILE before it stops; with
#      PARLEY_TEST_POSTGRES_OPTIONS="-c log_autovacuum_min_duration=0" it tells when autovacuum ran)
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
scenario=$1; shift
# An impaired link: checked (root, iproute2, the profile) before anything starts.
# --nodes is the script's own: taken out of what the harness is given.
netem="" nodes=1
args=() given=("$@")
for ((i = 0; i < ${#given[@]}; i++)); do
    case "${given[i]}" in
        --netem) netem=${given[i + 1]:-} ;;
        --netem=*) netem=${given[i]#--netem=} ;;
        --nodes) nodes=${given[i + 1]:-}; i=$((i + 1)); continue ;;
        --nodes=*) nodes=${given[i]#--nodes=}; continue ;;
    esac
    args+=("${given[i]}")
done
set -- ${args[@]+"${args[@]}"}
[[ "$nodes" =~ ^[1-9][0-9]*$ ]] || { echo "loadtest: --nodes is a number from 1"; exit 2; }
if [ "$nodes" -gt 1 ]; then
    [ "$scenario" = chat ] || { echo "loadtest: --nodes is for the chat scenario"; exit 2; }
    [ -z "$netem" ] || { echo "loadtest: --nodes and --netem do not go together"; exit 2; }
fi
if [ -n "$netem" ]; then
    [ "$scenario" = calls ] || { echo "loadtest: --netem is for the calls scenario"; exit 2; }
    scripts/loadtest-netns.sh check
    netem_args=$("$bin/parley-loadtest" netem "$netem")
fi
http_port=${LOADTEST_HTTP_PORT:-18282}
media_port=${LOADTEST_MEDIA_PORT:-51282}
[[ "$http_port$media_port" =~ ^[0-9]+$ ]] || { echo "loadtest: LOADTEST_HTTP_PORT and LOADTEST_MEDIA_PORT are port numbers"; exit 2; }
if (( http_port < media_port + nodes && media_port < http_port + nodes )); then
    echo "loadtest: the HTTP ports $http_port…$((http_port + nodes - 1)) and media ports $media_port…$((media_port + nodes - 1)) overlap (ICE-TCP listens on the media port): choose ports $nodes or more apart"
    exit 2
fi
work=$(mktemp -d)
token="load-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
ulimit -n 65536 2>/dev/null || true
http_host=127.0.0.1 announce=127.0.0.1 run=() netns=""
trap 'rm -rf "$work"' EXIT
if [ -n "$netem" ]; then
    netns="plt$$"
    trap 'scripts/loadtest-netns.sh down "$netns"; rm -rf "$work"' EXIT
    link=$(scripts/loadtest-netns.sh up "$netns" "$netem_args")
    read -r http_host client_ip placement <<< "$link"
    announce=$http_host
    run=(ip netns exec "$netns")
    set -- "$@" --bind-host "$client_ip" --netem-by "$placement"
fi

# Several nodes share one PostgreSQL: a private cluster, the same token key and admin token on each.
shared=() database_pid="" pg_dir=""
cleanup() {
    if [ -n "${LOADTEST_PG_STATEMENTS:-}" ] && [ -n "$pg_dir" ]; then
        psql "$pg_url" -X -c "SELECT calls, round(total_exec_time) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms, rows,
            plans, round(total_plan_time) AS plan_ms,
            left(regexp_replace(query, '\s+', ' ', 'g'), 200) AS query FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25" \
            > "$LOADTEST_PG_STATEMENTS" 2>&1 || true
    fi
    [ -z "${LOADTEST_PG_LOG:-}" ] || [ -z "$pg_dir" ] || cp "$pg_dir/server.log" "$LOADTEST_PG_LOG" || true
    for pid in ${servers[@]+"${servers[@]}"}; do kill -9 "$pid" 2>/dev/null || true; done
    [ -z "$netns" ] || scripts/loadtest-netns.sh down "$netns"
    [ -z "$pg_dir" ] || scripts/postgres-test-cluster.sh stop "$pg_dir"
    rm -rf "$work"
}
servers=()
trap cleanup EXIT
if [ "$nodes" -gt 1 ]; then
    [ -z "${LOADTEST_PG_STATEMENTS:-}" ] \
        || export PARLEY_TEST_POSTGRES_OPTIONS="${PARLEY_TEST_POSTGRES_OPTIONS:-} -c shared_preload_libraries=pg_stat_statements"
    cluster=$(scripts/postgres-test-cluster.sh start)
    pg_dir=$(sed -n 's/^export PARLEY_TEST_POSTGRES_DIR=//p' <<< "$cluster")
    pg_url=$(sed -n 's/^export PARLEY_TEST_POSTGRES_URL=//p' <<< "$cluster")
    [ -z "${LOADTEST_PG_STATEMENTS:-}" ] || psql "$pg_url" -X -q -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" > /dev/null
    database_pid=$(head -1 "$pg_dir/data/postmaster.pid")
    shared=(DATABASE_URL="$pg_url?pool=${LOADTEST_DATABASE_POOL:-10}"
            AUTH_JWT_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')")
fi

# Node k (0…nodes-1): its own ports and data folder; waits for its /health.
start_node() {
    local k=$1 port=$((http_port + $1))
    mkdir -p "$work/node$k"
    env ${shared[@]+"${shared[@]}"} HTTP_HOST=$http_host HTTP_PORT=$port MEDIA_PORT=$((media_port + k)) \
        MEDIA_ANNOUNCED_ADDRESS=$announce MEDIA_ANNOUNCED_ADDRESSES=::1 \
        DATA_DIRECTORY="$work/node$k/data" ADMIN_TOKEN="$token" AUTH_BCRYPT_COST=4 \
        LIMITS_MESSAGES_PER_MINUTE=${LIMITS_MESSAGES_PER_MINUTE:-1000000} LIMITS_CALL_INVITES_PER_MINUTE=${LIMITS_CALL_INVITES_PER_MINUTE:-1000000} \
        LIMITS_REQUESTS_PER_SECOND=${LIMITS_REQUESTS_PER_SECOND:-1000000} LIMITS_REQUEST_BURST=${LIMITS_REQUEST_BURST:-1000000} \
        LOG_LEVEL=${LOG_LEVEL:-warning} "$bin/parley" --config config/parley.yaml > "$work/node$k/server.log" 2>&1 &
    local server=$!
    disown $server
    servers+=("$server")
    for _ in $(seq 1 150); do
        curl -fs "http://$http_host:$port/health" > /dev/null && return 0
        kill -0 $server 2>/dev/null || { cat "$work/node$k/server.log"; echo "loadtest: node $((k + 1)) did not start"; exit 1; }
        sleep 0.2
    done
    cat "$work/node$k/server.log"; echo "loadtest: node $((k + 1)) did not answer /health"; exit 1
}
# The first node migrates the database; the others start on it after.
extra=()
for ((k = 0; k < nodes; k++)); do
    start_node $k
    [ $k -eq 0 ] || extra+=(--node "http://$http_host:$((http_port + k))")
done
[ -z "$database_pid" ] || extra+=(--watch "postgresql=$database_pid")
echo "loadtest: $nodes node(s) up: ${servers[*]} (pids)${database_pid:+, PostgreSQL $database_pid}" >&2
# LOADTEST_WARMUP_SECONDS=N: the same scenario for N seconds first, unmeasured (its users and
# report are thrown away): connections, prepared statements and caches warm before the run.
if [ "${LOADTEST_WARMUP_SECONDS:-0}" -gt 0 ]; then
    echo "loadtest: warming up for $LOADTEST_WARMUP_SECONDS s (not measured)" >&2
    ${run[@]+"${run[@]}"} "$bin/parley-loadtest" "$scenario" --server "http://$http_host:$http_port" --admin-token "$token" \
        --out "$work/warmup" ${extra[@]+"${extra[@]}"} "$@" --duration "$LOADTEST_WARMUP_SECONDS" > "$work/warmup.log" 2>&1 \
        || { cat "$work/warmup.log"; echo "loadtest: the warm-up failed"; exit 1; }
fi
${run[@]+"${run[@]}"} "$bin/parley-loadtest" "$scenario" --server "http://$http_host:$http_port" --admin-token "$token" \
    --out "${LOADTEST_OUT:-loadtest-results}" ${extra[@]+"${extra[@]}"} "$@"
