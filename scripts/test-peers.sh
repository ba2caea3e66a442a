#!/usr/bin/env bash
# The real peers the tests talk to, in a venv of the project's own (.venv):
# aiosmtpd (an SMTP server) for mail, aiortc (a WebRTC client) for calls, the OpenAPI checker, and
# Schemathesis, the API fuzzer of scripts/fuzz-api.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
want="aiosmtpd==1.4.6"  # the SMTP server the live mail tests deliver to
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import aiosmtpd" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check $want
fi
if ! .venv/bin/python -c "import openapi_spec_validator, yaml" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check "openapi-spec-validator==0.9.0" "PyYAML==6.0.3"
fi
if ! .venv/bin/python -c "import aiortc" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check "aiortc==1.16.0"   # the WebRTC peer of the relay and call tests
fi
if ! .venv/bin/python -c "import h2, cryptography" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check "h2==4.4.1" "cryptography==50.0.2"   # the APNs stand-in of the push tests
fi
if ! .venv/bin/python -c "import opentelemetry.proto" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check "opentelemetry-proto==1.39.1"   # the OTLP receiver of the tracing test
fi
# Playwright drives Debian's chromium (scripts/test.sh installs it; no browser is downloaded) in
# the TURN call test, Tests/Peers/chromium_turn_peer.py.
if ! .venv/bin/python -c "import playwright" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check "playwright==1.65.2"
fi
if ! .venv/bin/st --version 2>/dev/null | grep -q " 4.32.5$"; then
  .venv/bin/pip install -q --disable-pip-version-check "schemathesis==4.32.5"   # the API fuzzer (scripts/fuzz-api.sh)
fi
