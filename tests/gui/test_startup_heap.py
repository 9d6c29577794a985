"""The start-up job freezes the heap out of the garbage collector's full passes, once per process.

Why it matters: a full collection walks every tracked object while holding the GIL, and the
window's UI thread waits for it; with the start-up heap (Qt bindings, the LLM client's modules,
the catalog) frozen, the collections set off by the first retrieval on a 770-page grammar
shrink from 130-190 ms to ~40 ms (``bench gui``).  Run in a fresh interpreter: the test must see
the first freeze of a process, not one an earlier test already made.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = """
import gc, json
from core.progress import Progress
from gui.common import backend
from gui.common.startup_heap import freeze_startup_heap
before = gc.get_freeze_count()
tracked = len(gc.get_objects())
catalog = backend.load_catalog(Progress())
print(json.dumps({"before": before, "frozen": gc.get_freeze_count(), "tracked_before": tracked,
                  "tracked_after": len(gc.get_objects()), "features": len(list(catalog)),
                  "again": freeze_startup_heap()}))
"""


def test_loading_the_catalog_freezes_the_startup_heap_once() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    numbers = json.loads(result.stdout.strip().splitlines()[-1])
    assert numbers["before"] == 0 and numbers["features"] > 300
    # everything alive after start-up (catalog and the LLM client's modules included) is out of reach
    assert numbers["frozen"] > numbers["tracked_before"] > 0
    assert numbers["tracked_after"] < numbers["frozen"] / 10
    assert numbers["again"] is False  # once per process: garbage made later stays collectable
