#!/usr/bin/env bash
# Set up everything GrammarLens needs on a fresh Debian/Ubuntu machine, idempotently:
# a virtual environment in .venv with requirements-dev.txt, then the system libraries of the Qt
# window (scripts/system_deps.sh: apt when root or password-less sudo, else the exact command).
# Re-running is cheap: pip is skipped while the requirement files are unchanged.
#   scripts/setup.sh           for the app: a missing window library is an error
#   scripts/setup.sh --tests   for the tests: Xvfb too; a missing library only fails under CI=true
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
# Tesseract and its language models (scanned grammars) come with the window's libraries from
# scripts/system_deps.sh; under CI=true a missing one fails the setup, since CI tests OCR for real.
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
# constraints.txt pins every package the requirements pull in, as CI tested them and the desktop builds
# were made (scripts/write_constraints.py writes it), so a new release of a transitive dependency cannot
# change a build between two runs.  A package it does not name yet installs unconstrained.
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-dev.txt constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
    .venv/bin/python -m pip install --quiet -r requirements-dev.txt -c constraints.txt
    echo "$want" > "$stamp"
fi
if [ "${1:-}" = "--tests" ]; then
    if ! bash scripts/system_deps.sh --tests; then
        if [ "${CI:-}" = "true" ]; then
            echo "setup: CI must test the real window (xcb under Xvfb); stopping." >&2
            exit 1
        fi
        echo "setup: the tests that open a real window (xcb under Xvfb) will be skipped." >&2
    fi
else
    bash scripts/system_deps.sh
fi
