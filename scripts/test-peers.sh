#!/usr/bin/env bash
# The real peers the tests talk to, in a venv of the project's own (.venv):
# aiosmtpd (an SMTP server) now; aiortc joins when calls are tested.
set -euo pipefail
cd "$(dirname "$0")/.."
want="aiosmtpd==1.4.6"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import aiosmtpd" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check $want
fi
