#!/usr/bin/env bash
# The test command: installs what the tests need, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh openssl chromium coturn prometheus ffmpeg haproxy   # coturn and chromium: the TURN tests (TurnTests.swift); prometheus: PrometheusScrapeTests; ffmpeg: real CAF/M4A recordings (VoiceMessageTests, FFmpegProbeTests); haproxy: docs/examples/haproxy.cfg in front of two nodes (LoadBalancerTests)
scripts/test-peers.sh
export PARLEY_TEST_PYTHON="$PWD/.venv/bin/python"
# A private PostgreSQL (Debian's, on 127.0.0.1 and a free port) for the tests on that engine.
eval "$(scripts/postgres-test-cluster.sh start)"
trap 'scripts/postgres-test-cluster.sh stop "$PARLEY_TEST_POSTGRES_DIR"' EXIT
.venv/bin/python scripts/check-openapi.py   # docs/openapi.yaml is valid and lists exactly the routes served
swift build --build-tests
# A crash prints the crashed thread only, symbolicated (all threads of a test process took minutes);
# a failed run ends with a digest of what failed (CI shows only the tail of the log).
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,threads=crashed,registers=none,images=none}"
# A suite that fails in the full run (hundreds of tests at once on a small machine: Chromium,
# aiortc, PostgreSQL, real sockets) is run again once, alone — at most three suites, and never
# after a crash. One that then passes is reported as flaky, at the end of the run and in
# .build/flaky-suites.log; one that fails again fails the run.
flaky=()
run_tests() {
    local log; log=$(mktemp /tmp/parley-test.XXXXXX.log)
    if swift test --skip-build "$@" 2>&1 | tee "$log"; then rm -f "$log"; return 0; fi
    python3 scripts/test-digest.py "$log"; echo "whole output: $log"
    local suites; mapfile -t suites < <(python3 scripts/test-digest.py --failed-suites "$log")
    [ ${#suites[@]} -ge 1 ] && [ ${#suites[@]} -le 3 ] || return 1
    local names; names=$(IFS='|'; echo "${suites[*]}")
    echo "==== run again, alone: ${suites[*]} ===="
    local again; again=$(mktemp /tmp/parley-test-again.XXXXXX.log)
    if swift test --skip-build --filter "[./]($names)/" 2>&1 | tee "$again"; then
        flaky+=("${suites[@]}")
        echo "$(date -u +%FT%TZ) ${PARLEY_TEST_DATABASE:-sqlite} ${suites[*]} (first run: $log)" >> .build/flaky-suites.log
        return 0
    fi
    python3 scripts/test-digest.py "$again"; echo "whole output: $again"; return 1
}
report_flaky() {
    [ ${#flaky[@]} -eq 0 ] || echo "==== FLAKY: failed in the full run, passed alone: ${flaky[*]} (see .build/flaky-suites.log) ===="
}
trap 'report_flaky; scripts/postgres-test-cluster.sh stop "$PARLEY_TEST_POSTGRES_DIR"' EXIT
run_tests "$@"
# The server suites that keep what they do in the database, again on PostgreSQL (ParleyStorageTests
# already runs each test on both engines): skipped when only some tests were asked for.
if [ $# -eq 0 ]; then PARLEY_TEST_DATABASE=postgresql run_tests --filter "$(scripts/postgres-suites.sh)"; fi
# libFuzzer over every wire parser (STUN, RTP, RTCP, SDP, DTLS records, multipart, realtime
# frames, media probes), a few seconds each from the seeds (skipped when only some tests were
# asked for; scripts/fuzz.sh TARGET SECONDS runs one longer by hand).
if [ $# -eq 0 ]; then scripts/fuzz.sh all 4; fi
# docs/openapi.yaml under Schemathesis against the built server: every operation, all checks, a
# fixed seed (skipped when only some tests were asked for; scripts/fuzz-api.sh runs longer by hand).
if [ $# -eq 0 ]; then scripts/fuzz-api.sh --ci; fi
# An iOS developer's first hour: a client generated from docs/openapi.yaml with the generator's
# defaults walks the built server through an app's first session (skipped likewise).
if [ $# -eq 0 ]; then scripts/openapi-walk.sh; fi
# The load-test harness against the built server: a few calls and a little chat (skipped when
# only some tests were asked for).
if [ $# -eq 0 ]; then scripts/loadtest-smoke.sh .build/debug; fi
