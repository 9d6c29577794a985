#!/usr/bin/env bash
# Set up everything GrammarLens needs on a fresh Debian/Ubuntu machine, idempotently:
# a virtual environment in .venv with requirements-dev.txt. Re-running is cheap: pip is
# skipped while the requirement files are unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
    .venv/bin/python -m pip install --quiet -r requirements-dev.txt
    echo "$want" > "$stamp"
fi
