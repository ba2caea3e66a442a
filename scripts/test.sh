#!/usr/bin/env bash
# The test command: installs what the tests need, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh openssl
scripts/test-peers.sh
export PARLEY_TEST_PYTHON="$PWD/.venv/bin/python"
.venv/bin/python scripts/check-openapi.py   # docs/openapi.yaml is valid and lists exactly the routes served
swift build --build-tests
swift test --skip-build "$@"
