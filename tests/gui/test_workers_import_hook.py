"""The one override of a PySide6 internal (gui/common/workers.py): it still finds what it replaces, and it stays exact.

Why: the override answers PySide's "does this module use ``from __feature__``?" with no for every module.
That is only true while no module of ours uses ``__feature__``, and it only helps while PySide still calls the
probe after imports.  A PySide upgrade or a new ``from __feature__`` line fails here, not in a user's window.
"""

from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path

from gui.common.workers import FEATURE_MODULE, FEATURE_PROBE, WorkerPool, _uses_no_feature, make_worker_imports_safe

REPO = Path(__file__).resolve().parents[2]


def test_no_module_of_ours_uses_a_pyside_feature() -> None:
    users = [str(path.relative_to(REPO)) for package in ("core", "gui", "cli", "bench", "devtools")
             for path in (REPO / package).rglob("*.py")
             if any(isinstance(node, ast.ImportFrom) and node.module == "__feature__"
                    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))]
    assert users == [], "the worker import override says no module uses __feature__: remove it first"


def test_the_probe_is_found_and_replaced(qapp) -> None:
    WorkerPool()  # what the window does once
    assert make_worker_imports_safe(), f"PySide no longer has {FEATURE_MODULE}.{FEATURE_PROBE}: re-check the hook"
    assert getattr(sys.modules[FEATURE_MODULE], FEATURE_PROBE) is _uses_no_feature


def test_a_module_imported_in_a_thread_is_not_read_by_pyside(qapp, tmp_path, monkeypatch) -> None:
    """A new module imported off the UI thread is still imported, and PySide marks it "ignored" (-1) unread."""
    make_worker_imports_safe()
    (tmp_path / "gl_hook_probe_mod.py").write_text("VALUE = 'PySide6 is named here'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.append(__import__("gl_hook_probe_mod").VALUE))
    thread.start()
    thread.join()
    assert seen == ["PySide6 is named here"]
    assert sys.modules[FEATURE_MODULE].pyside_feature_dict.get("gl_hook_probe_mod") == -1
