#!/usr/bin/env bash
# Set everything up, then open GrammarLens (on the demo project when no argument is given).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python main.py "$@"
