#!/usr/bin/env bash
# The load-test harness's smoke run, part of the test command: the built `parley` and
# `parley-loadtest` (scripts/loadtest.sh, one fresh server per scenario) with a few calls and a
# little chat. Fails unless every call carried checked media with zero decode failures and bounded
# loss, and every message was acknowledged and delivered to every member.
# usage: scripts/loadtest-smoke.sh [build folder, default .build/debug]
set -euo pipefail
cd "$(dirname "$0")/.."
export PARLEY_BIN=${1:-.build/debug}
export LOADTEST_OUT
LOADTEST_OUT=$(mktemp -d)
trap 'rm -rf "$LOADTEST_OUT"' EXIT
echo "loadtest-smoke: 3 video calls for 5 s"
scripts/loadtest.sh calls --calls 3 --duration 5 --ramp 3 --decoding-calls 1 \
    --max-loss-percent 2 --max-decode-failures 0 --require-all-calls
echo "loadtest-smoke: chat, 12 users at 60 msg/s for 3 s"
scripts/loadtest.sh chat --users 12 --rate 60 --duration 3 --group-size 4 --require-all-delivered
for file in calls.json calls.svg chat.json chat.svg; do
    [ -s "$LOADTEST_OUT/$file" ] || { echo "loadtest-smoke: $file was not written"; exit 1; }
done
echo "loadtest-smoke: passed"
