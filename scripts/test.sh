#!/usr/bin/env bash
# Set everything up, then run the whole test suite (slow end-to-end tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
