#!/usr/bin/env bash
# Installs the Debian packages Parley needs to build and run, only those that are missing, and
# any named on the command line (scripts/test.sh names what the tests run beside Parley: coturn,
# prometheus, haproxy, …; `scripts/install-deps.sh haproxy` for the load balancer of
# docs/examples/haproxy.cfg).
set -euo pipefail
packages=(pkg-config libssl-dev libsrtp2-dev libopus-dev libvpx-dev libsqlite3-dev libmimalloc-dev "$@")
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
