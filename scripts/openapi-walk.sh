#!/usr/bin/env bash
# An iOS developer's first hour, in the test command: builds clients/openapi-walk (a client that
# Apple's swift-openapi-generator makes from docs/openapi.yaml with its default configuration,
# over AsyncHTTPClient) and walks a fresh Parley through an app's first session with it. Fails
# when the generator warns about the spec, or when any answer is not what the spec says or cannot
# be decoded by the generated code.
#
# The client's build lives outside the clone (PARLEY_CACHE, default ~/.cache/parley), so a second
# run on the same machine builds only what changed.
# usage: scripts/openapi-walk.sh   env: PARLEY_BIN (a folder with a built `parley`, default .build/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PARLEY_BIN:-.build/debug}
cache=${PARLEY_CACHE:-$HOME/.cache/parley}
scratch="$cache/openapi-walk"
[ -x "$bin/parley" ] || { echo "openapi-walk: no $bin/parley; build first (swift build)"; exit 1; }

work=$(mktemp -d)
started=$(date +%s)
echo "openapi-walk: building the generated client (scratch $scratch)"
if ! swift build --package-path clients/openapi-walk --scratch-path "$scratch" > "$work/build.log" 2>&1; then
    cat "$work/build.log"; echo "openapi-walk: the generated client did not build"; exit 1
fi
echo "openapi-walk: built in $(( $(date +%s) - started )) s"
# The generator reports what it could not represent, or skipped, as diagnostics; the spec must
# give none. (The build plugin prints them among the build's lines; the tool writes them out.)
"$scratch/debug/swift-openapi-generator-tool" generate docs/openapi.yaml \
    --config clients/openapi-walk/Sources/ParleyAPIWalk/openapi-generator-config.yaml \
    --output-directory "$work/generated" --diagnostics-output-path "$work/diagnostics.yaml" > "$work/generate.log" 2>&1 \
    || { cat "$work/generate.log"; echo "openapi-walk: swift-openapi-generator failed on docs/openapi.yaml"; exit 1; }
if ! grep -qx "diagnostics: \[\]" "$work/diagnostics.yaml"; then
    cat "$work/diagnostics.yaml"; echo "openapi-walk: swift-openapi-generator warns about docs/openapi.yaml"; exit 1
fi
echo "openapi-walk: the generator has no warnings about docs/openapi.yaml"

read -r http_port media_port < <(python3 - <<'PY'
import socket
tcp = socket.socket(); tcp.bind(("127.0.0.1", 0))
udp = socket.socket(type=socket.SOCK_DGRAM); udp.bind(("127.0.0.1", 0))
print(tcp.getsockname()[1], udp.getsockname()[1])
PY
)
HTTP_HOST=127.0.0.1 HTTP_PORT=$http_port MEDIA_HOST=127.0.0.1 MEDIA_PORT=$media_port DATA_DIRECTORY="$work/data" \
    AUTH_BCRYPT_COST=4 AUTH_REGISTRATIONS_PER_ADDRESS_PER_HOUR=100000 LOG_LEVEL=${LOG_LEVEL:-warning} \
    "$bin/parley" --config config/parley.yaml > "$work/server.log" 2>&1 &
server=$!
disown $server
trap 'kill -9 $server 2>/dev/null || true; rm -rf "$work"' EXIT
base="http://127.0.0.1:$http_port"
for _ in $(seq 1 150); do
    curl -fs "$base/health" > /dev/null && break
    kill -0 $server 2>/dev/null || { cat "$work/server.log"; echo "openapi-walk: the server did not start"; exit 1; }
    sleep 0.2
done
"$scratch/debug/ParleyAPIWalk" "$base" "$work/data/outbox"
