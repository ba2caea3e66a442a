#!/usr/bin/env bash
# The impaired link of a calls run (scripts/loadtest.sh … --netem PROFILE): a network namespace
# for the media clients, a veth pair to it from the machine (addresses in 10.213.0.0/16, made
# here, never routed anywhere else), and `tc netem` with the profile on both ends, so loss, delay,
# jitter and reordering hit every packet between the clients and the relay, each way.
# usage: scripts/loadtest-netns.sh check                  root, iproute2, namespaces: exits 2 saying what is missing
#        scripts/loadtest-netns.sh up NAME "NETEM ARGS"    prints "HOST_ADDRESS CLIENT_ADDRESS kernel|harness"
#        scripts/loadtest-netns.sh down NAME
# "harness" means the kernel has no netem qdisc: the link is there, and the harness applies the
# profile on each media socket itself (the reason goes to standard error).
set -euo pipefail
command=${1:-}
case "$command" in
check)
    [ "$(id -u)" = 0 ] || { echo "loadtest: --netem needs root (a network namespace, a veth pair, tc qdiscs)" >&2; exit 2; }
    for tool in ip tc; do
        command -v "$tool" > /dev/null || { echo "loadtest: --netem needs iproute2 ('$tool' is missing: apt-get install iproute2)" >&2; exit 2; }
    done
    probe="plt-probe-$$"
    ip netns add "$probe" 2> /tmp/loadtest-netns-$$.err || {
        echo "loadtest: --netem cannot make a network namespace here: $(cat /tmp/loadtest-netns-$$.err)" >&2
        rm -f /tmp/loadtest-netns-$$.err; exit 2; }
    ip netns del "$probe"; rm -f /tmp/loadtest-netns-$$.err
    ;;
up)
    name=$2 netem=$3
    # One /30 per run, picked from the process id so runs side by side do not collide.
    net="10.213.$(( $$ % 250 + 1 ))"
    host_ip="$net.1" client_ip="$net.2" host_if="${name}h" client_if="${name}c"
    ip netns add "$name"
    ip link add "$host_if" type veth peer name "$client_if"
    ip link set "$client_if" netns "$name"
    ip addr add "$host_ip/30" dev "$host_if"
    ip link set "$host_if" up
    ip -n "$name" addr add "$client_ip/30" dev "$client_if"
    ip -n "$name" link set "$client_if" up
    ip -n "$name" link set lo up
    # Each qdisc shapes what leaves its end: the client's end what the clients send, the
    # machine's end what the relay sends back.
    if err=$(tc -n "$name" qdisc add dev "$client_if" root netem $netem limit 100000 2>&1); then
        tc qdisc add dev "$host_if" root netem $netem limit 100000
        placement=kernel
    else
        why="tc said: $err"
        if [ -r /proc/config.gz ] && ! zcat /proc/config.gz | grep -q '^CONFIG_NET_SCH_NETEM=[ym]'; then
            why="this kernel ($(uname -r)) was built without it (CONFIG_NET_SCH_NETEM is not set$(zcat /proc/config.gz | grep -q '^CONFIG_MODULES=y' || echo ', and it loads no modules'))"
        fi
        echo "loadtest: no netem qdisc: $why; the clients stay in their namespace and the harness applies '$netem' on each media socket, each way" >&2
        placement=harness
    fi
    echo "$host_ip $client_ip $placement"
    ;;
down)
    ip netns del "$2" 2> /dev/null || true   # takes the veth pair with it
    ;;
*)
    echo "usage: scripts/loadtest-netns.sh check | up NAME 'NETEM ARGS' | down NAME" >&2; exit 2 ;;
esac
