"""Two coders' files of one grammar, and the window's disagreement queue between them.

Used by the queue's own tests (tests/gui/test_disagreement_queue.py) and by those that need the queue
open for another reason (the coder's name asked at a resolution, the layout at 1280 px).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SLOW_MS = 30000


@pytest.fixture
def two_coder_files(demo_project: Path, tmp_path: Path) -> tuple[Path, Path, list[int]]:
    """A (ana) and B (ben): copies of the demo project; GB107 coded 1 vs 0 with pins, 81A agreed."""
    from core.coding.decisions import code
    from core.store import open_project
    from core.store.repository import list_paragraphs

    a, b = tmp_path / "ana.grammarlens", tmp_path / "ben.grammarlens"
    shutil.copy(demo_project, a)
    shutil.copy(demo_project, b)
    with open_project(a, backup=False) as project:
        ids = [p.id for p in list_paragraphs(project)[5:8]]
        code(project, "GB107", "1", paragraph_ids=[ids[0]], note="negative suffix -ka", reviewer="ana")
        code(project, "81A", "SOV", reviewer="ana")
    with open_project(b, backup=False) as project:
        code(project, "GB107", "0", paragraph_ids=[ids[1]], note="particle, not an affix", reviewer="ben")
        code(project, "81A", "SOV", reviewer="ben")
    return a, b, ids


def open_compared_queue(qtbot, window, a: Path, b: Path):
    """Open ``a`` in ``window`` and the disagreement queue against ``b``; the queue, once it has compared them."""
    from gui.window.sample_wiring import open_queue

    assert window.open_project(a)
    queue = open_queue(window, b)
    with qtbot.waitSignal(queue.compared, timeout=SLOW_MS):
        pass
    return queue
