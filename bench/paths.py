"""Where benchmarks find their data by default: the repository's ``benchmarks/`` and ``../shared`` beside it.

Kept out of ``core`` on purpose: the product never reaches outside the repository on its own; only
benchmarks (run from a source checkout) default to the shared data next to it.  Every default can be
overridden on the command line.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"
SHARED = REPO.parent / "shared"
SHARED_GRAMMARS = SHARED / "grammars"
# Projects a benchmark ingests once and reuses (gitignored build folder, not a fixed /tmp path).
BUILD = REPO / "build"
