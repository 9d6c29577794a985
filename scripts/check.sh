#!/usr/bin/env bash
# The code checks of CONTRIBUTING.md, fast (~15 s): lint, import layers, types. Run by scripts/test.sh
# before the tests; run it alone while working:  bash scripts/check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
echo "check: ruff (lint and import order; pyproject.toml [tool.ruff])"
.venv/bin/ruff check --no-cache .
echo "check: import-linter (layers and cycles; pyproject.toml [tool.importlinter])"
.venv/bin/lint-imports --no-cache
echo "check: mypy (core, cli, gui, bench; pyproject.toml [tool.mypy], no module exempt)"
.venv/bin/mypy --no-incremental
echo "check: all passed in $(( $(date +%s) - started )) s"
