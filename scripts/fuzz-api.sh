#!/usr/bin/env bash
# docs/openapi.yaml under a fuzzer: Schemathesis (pinned in scripts/test-peers.sh) generates valid
# and invalid requests for every operation of the spec but the realtime upgrade, sends them to a
# Parley this script starts, and checks every answer against the spec with all its checks
# (status codes, content types, headers, bodies, 405 Allow, auth, object-level authorization
# between two users, stateful sequences through the spec's links). docs/schemathesis.toml
# declares, per operation, the documented rejections a valid request can still get.
#
# The server: the built `parley` on spare ports with a throw-away data folder; through the admin
# API two verified, signed-in users who are friends (Ann and Bo, the tester's two peers), one
# more whose session logout ends, one more for account deletion, and two who have asked Ann to be
# friends (so that accepting and declining have requests to work on).
#
# usage: scripts/fuzz-api.sh --ci            # the test command's run: fixed seed, a few examples
#        scripts/fuzz-api.sh                 # by hand: a random seed (printed) and more examples
#        scripts/fuzz-api.sh --seed 1234     # reproduce a run; any `st run` option may follow
# env: PARLEY_BIN (a folder with a built `parley`, default .build/debug), FUZZ_KEEP=1 keeps the
#      data folder and server log.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PARLEY_BIN:-.build/debug}
python=.venv/bin/python
st=.venv/bin/st
[ -x "$st" ] || scripts/test-peers.sh
[ -x "$bin/parley" ] || { echo "fuzz-api: no $bin/parley; build first (swift build)"; exit 1; }

if [ "${1:-}" = "--ci" ]; then
    shift
    options=(--seed 24 --max-examples 16)
else
    options=(--seed "$(( (RANDOM << 15) | RANDOM ))" --max-examples 100)
fi

work=$(mktemp -d)
read -r http_port media_port < <("$python" -c '
import socket
tcp = socket.socket(); tcp.bind(("127.0.0.1", 0))
udp = socket.socket(type=socket.SOCK_DGRAM); udp.bind(("127.0.0.1", 0))
print(tcp.getsockname()[1], udp.getsockname()[1])')
admin="fuzz-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
# The fuzzer's few users send thousands of requests as fast as they are answered: no per-user
# request budget, or most answers would be its 429 (RequestBudgetFloodTests covers that).
HTTP_HOST=127.0.0.1 HTTP_PORT=$http_port MEDIA_HOST=127.0.0.1 MEDIA_PORT=$media_port DATA_DIRECTORY="$work/data" \
    ADMIN_TOKEN="$admin" AUTH_BCRYPT_COST=4 AUTH_ACCESS_TOKEN_SECONDS=86400 AUTH_REGISTRATIONS_PER_ADDRESS_PER_HOUR=1000000 AUTH_REGISTRATIONS_PER_HOUR=1000000 \
    LIMITS_REQUESTS_PER_SECOND=0 LOG_LEVEL=${LOG_LEVEL:-warning} \
    "$bin/parley" --config config/parley.yaml > "$work/server.log" 2>&1 &
server=$!
disown $server
cleanup() {
    kill -9 $server 2>/dev/null || true
    if [ "${FUZZ_KEEP:-0}" = 1 ]; then echo "fuzz-api: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
base="http://127.0.0.1:$http_port"
for _ in $(seq 1 150); do
    curl -fs "$base/health" > /dev/null && break
    kill -0 $server 2>/dev/null || { cat "$work/server.log"; echo "fuzz-api: the server did not start"; exit 1; }
    sleep 0.2
done

# Ann and Bo are friends (pairs: accounts 0 and 1); then the users for logout and deletion, and Cy
# and Di.
curl -fsS -X POST "$base/admin/users" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"users": [
          {"name": "Ann Fuzz", "email": "ann@fuzz.test", "password": "fuzz ann password"},
          {"name": "Bo Fuzz", "email": "bo@fuzz.test", "password": "fuzz bo password"},
          {"name": "Lee Leaving", "email": "leaving@fuzz.test", "password": "fuzz leaving password"},
          {"name": "Del Deleting", "email": "deleting@fuzz.test", "password": "fuzz deleting password"},
          {"name": "Cy Asking", "email": "cy@fuzz.test", "password": "fuzz cy password"},
          {"name": "Di Asking", "email": "di@fuzz.test", "password": "fuzz di password"}],
         "befriend": "pairs", "sessions": true}' > "$work/users.json"
# The WFC auth file docs/schemathesis.toml names: one identity per user, and the admin token.
"$python" -c '
import json, sys
work, admin = sys.argv[1], sys.argv[2]
users = json.load(open(work + "/users.json"))["users"]
assert len(users) == 6 and all(user.get("accessToken") for user in users), users
def entry(name, token):
    return {"name": name, "fixedHeaders": [{"name": "Authorization", "value": "Bearer " + token}]}
auth = [entry(name, user["accessToken"]) for name, user in zip(["ann", "bo", "leaving", "deleting"], users)]
json.dump({"schemaVersion": "0.2.0", "auth": auth + [entry("admin", admin)]}, open(work + "/wfc-auth.json", "w"))
# Cy and Di have asked Ann to be friends: requests she can accept or decline.
for user in users[4:]:
    print(user["accessToken"], users[0]["id"])
' "$work" "$admin" > "$work/askers"
while read -r token ann_id; do
    curl -fsS -X POST "$base/v1/friends/requests" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -d "{\"userId\": \"$ann_id\"}" > /dev/null
done < "$work/askers"
export PARLEY_FUZZ_USERS="$work/wfc-auth.json"
export HYPOTHESIS_STORAGE_DIRECTORY="$work/hypothesis"   # not a .hypothesis folder in the checkout

# One run per identity: the admin token on the admin routes (first, so that Ann finds the users
# it made), Ann (with Bo as her peer) on every other operation but two, and a user of its own
# each for logout and account deletion. (Schemathesis
# keeps one HTTP session for a whole run, so the identity is chosen per run, not per operation.)
admin_paths='^/(admin/|metrics$)'
# The small runs have no links among their operations, so no stateful phase.
unit=--phases=examples,coverage,fuzzing
runs=(
    "admin --include-path-regex $admin_paths $unit"
    "ann --exclude-path-regex $admin_paths --exclude-operation-id logout --exclude-operation-id deleteMe"
    "leaving --include-operation-id logout $unit"
    "deleting --include-operation-id deleteMe $unit"
)
echo "fuzz-api: schemathesis $("$st" --version | awk '{print $NF}') against $base, ${options[*]} $*"
started=$SECONDS
status=0
generated=0
failed=0
for run in "${runs[@]}"; do
    read -r -a filter <<< "$run"
    echo "fuzz-api: as ${filter[0]}: ${filter[*]:1}"
    code=0
    "$st" --config-file docs/schemathesis.toml run docs/openapi.yaml --url "$base" --no-color \
        --auth-wfc-user "${filter[0]}" "${filter[@]:1}" "${options[@]}" "$@" 2>&1 | tee "$work/st.log" || code=$?
    [ "$code" -eq 0 ] || status=$code
    count=$(grep -Eo '^  [0-9]+ generated' "$work/st.log" | grep -Eo '[0-9]+' || true)
    found=$(grep -Eo 'found [0-9]+ unique failures?' "$work/st.log" | grep -Eo '[0-9]+' || true)
    generated=$((generated + ${count:-0}))
    failed=$((failed + ${found:-0}))
done
if ! kill -0 $server 2>/dev/null; then
    tail -50 "$work/server.log"; echo "fuzz-api: the server died during the run"; exit 1
fi
echo "fuzz-api: $generated test cases generated in ${#runs[@]} runs, $failed failures, $((SECONDS - started)) s (${options[*]} $*)"
if [ $status -ne 0 ]; then
    tail -20 "$work/server.log"
    echo "fuzz-api: FAILED (reproduce with scripts/fuzz-api.sh ${options[*]} $*)"
fi
exit $status
