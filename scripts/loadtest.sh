#!/usr/bin/env bash
# One command for a load run: builds Parley and parley-loadtest (release, in .build-release),
# starts the server on spare ports with a throw-away data folder, runs the scenario against it,
# stops the server. The report (table, loadtest-results/<scenario>.json and .svg) is the harness's.
# usage: scripts/loadtest.sh calls --calls 50 --duration 60 --compare-reference
#        scripts/loadtest.sh chat --users 1000 --rate 1000 --duration 30
#        scripts/loadtest.sh idle --users 10000                  (resident memory with 10 000 idle sockets)
#        scripts/loadtest.sh idle --users 2000 --invites 1000    (invite → call.incoming latency)
#        scripts/loadtest.sh calls --calls 20 --netem "delay 40ms 10ms loss 2%"   (or --netem lte: an impaired link)
# --netem (root, iproute2): the harness runs in a network namespace of its own behind a veth pair
# with tc netem on both ends (scripts/loadtest-netns.sh); the server listens on the pair's address.
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
scenario=$1; shift
# An impaired link: checked (root, iproute2, the profile) before anything starts.
netem=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
        --netem) netem=${args[i + 1]:-} ;;
        --netem=*) netem=${args[i]#--netem=} ;;
    esac
done
if [ -n "$netem" ]; then
    [ "$scenario" = calls ] || { echo "loadtest: --netem is for the calls scenario"; exit 2; }
    scripts/loadtest-netns.sh check
    netem_args=$("$bin/parley-loadtest" netem "$netem")
fi
work=$(mktemp -d)
http_port=${LOADTEST_HTTP_PORT:-18282}
media_port=${LOADTEST_MEDIA_PORT:-51282}
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

HTTP_HOST=$http_host HTTP_PORT=$http_port MEDIA_PORT=$media_port MEDIA_ANNOUNCED_ADDRESS=$announce MEDIA_ANNOUNCED_ADDRESSES=::1 \
    DATA_DIRECTORY="$work/data" ADMIN_TOKEN="$token" AUTH_BCRYPT_COST=4 \
    LIMITS_MESSAGES_PER_MINUTE=${LIMITS_MESSAGES_PER_MINUTE:-1000000} LIMITS_CALL_INVITES_PER_MINUTE=${LIMITS_CALL_INVITES_PER_MINUTE:-1000000} \
    LOG_LEVEL=${LOG_LEVEL:-warning} "$bin/parley" --config config/parley.yaml > "$work/server.log" 2>&1 &
server=$!
disown $server
trap 'kill -9 $server 2>/dev/null || true; [ -z "$netns" ] || scripts/loadtest-netns.sh down "$netns"; rm -rf "$work"' EXIT
for _ in $(seq 1 150); do
    curl -fs "http://$http_host:$http_port/health" > /dev/null && break
    kill -0 $server 2>/dev/null || { cat "$work/server.log"; echo "loadtest: the server did not start"; exit 1; }
    sleep 0.2
done
${run[@]+"${run[@]}"} "$bin/parley-loadtest" "$scenario" --server "http://$http_host:$http_port" --admin-token "$token" \
    --out "${LOADTEST_OUT:-loadtest-results}" "$@"
