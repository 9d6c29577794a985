"""Only the window wires (issue 29): rooms never set the main window's fields, and what the window is given it declares.

Why a test: import-linter sees imports, not an untyped ``window`` parameter whose fields a room sets
(``window.sample_window = …`` in gui/sample was such a dependency upward, invisible to the contracts).
Read with ast, so tests/core still needs no Qt.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WINDOW_NAMES = {"window", "main_window"}


def _assigned_window_fields(path: Path) -> set[str]:
    """Fields set on a name ``window`` (or ``main_window``) in a module: ``window.x = …``."""
    fields = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign | ast.AugAssign) else []
        for target in targets:
            for part in ast.walk(target):
                if (isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name)
                        and part.value.id in WINDOW_NAMES):
                    fields.add(part.attr)
    return fields


def _declared_on_main_window() -> set[str]:
    tree = ast.parse((REPO / "gui" / "window" / "main_window.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MainWindow")
    return {t.attr for node in ast.walk(cls) for t in (node.targets if isinstance(node, ast.Assign) else
                                                        [node.target] if isinstance(node, ast.AnnAssign) else [])
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}


def test_no_room_sets_a_field_of_the_main_window() -> None:
    setters = {str(path.relative_to(REPO)): fields for path in (REPO / "gui").rglob("*.py")
               if path.parent.name != "window" and (fields := _assigned_window_fields(path))}
    assert setters == {}, "a room reaches into the window: return the object and let gui/window wire it"


def test_what_the_window_wiring_hands_the_window_is_declared_by_it() -> None:
    declared = _declared_on_main_window()
    assert {"sample_window", "disagreement_queue", "profile_view", "profile_dock"} <= declared
    for path in (REPO / "gui" / "window").glob("*.py"):
        undeclared = _assigned_window_fields(path) - declared
        assert not undeclared, f"{path.name} sets {sorted(undeclared)} on MainWindow, which never declares them"


def test_the_profile_room_does_not_wire_the_coding_pass() -> None:
    """The room order allows profile → coding; the references' wiring to the pass is the window's all the same."""
    importers = [str(path.relative_to(REPO)) for path in (REPO / "gui" / "profile").glob("*.py")
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gui.coding")]
    assert importers == []
