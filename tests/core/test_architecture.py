"""The house rules that keep GrammarLens layered: core/ is Qt-free, main.py only dispatches."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
QT_MODULES = {"PySide6", "PyQt5", "PyQt6", "shiboken6"}


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_and_cli_never_import_qt() -> None:
    offenders = [
        f"{p.relative_to(REPO)} imports {sorted(_imported_roots(p) & QT_MODULES)}"
        for folder in ("core", "cli")
        for p in (REPO / folder).rglob("*.py")
        if _imported_roots(p) & QT_MODULES
    ]
    assert offenders == []


def test_core_imports_no_gui_package() -> None:
    offenders = [str(p.relative_to(REPO)) for p in (REPO / "core").rglob("*.py") if "gui" in _imported_roots(p)]
    assert offenders == []


def test_importing_every_core_module_loads_no_qt() -> None:
    """Import all of core/ in a fresh interpreter and check that Qt never got loaded."""
    modules = sorted(
        ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for p in (REPO / "core").rglob("*.py")
    )
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6','shiboken6'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_module_outside_tests_imports_from_tests() -> None:
    """The app's own code never reaches into tests/: the frozen app leaves tests/ out (packaging/grammarlens.spec),
    so such an import works from a checkout and fails in the built app (issue 13: ``bench gui``)."""
    sources = [REPO / "main.py", *(p for folder in ("core", "cli", "gui", "scripts", "packaging")
                                   for p in (REPO / folder).rglob("*.py"))]
    sources.append(REPO / "packaging" / "grammarlens.spec")
    offenders = [str(p.relative_to(REPO)) for p in sources if "tests" in _imported_roots(p)]
    assert len(sources) > 50 and offenders == []


def test_main_only_dispatches() -> None:
    """main.py holds no logic: only imports of gui/cli and a dispatch function."""
    tree = ast.parse((REPO / "main.py").read_text(encoding="utf-8"))
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert functions == ["main"]
    assert len((REPO / "main.py").read_text(encoding="utf-8").splitlines()) < 40


def test_core_tests_need_no_qt() -> None:
    """tests/core runs without Qt: no Qt import and no pytest-qt fixture there (GUI tests live in tests/gui)."""
    this_file = Path(__file__).resolve()
    offenders = [
        str(p.relative_to(REPO)) for p in (REPO / "tests" / "core").rglob("*.py")
        if p.resolve() != this_file
        and (_imported_roots(p) & (QT_MODULES | {"pytestqt"}) or "qtbot" in p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_no_module_of_core_gui_bench_or_devtools_grows_past_400_lines() -> None:
    """A file that grows past 400 lines has two jobs (CONTRIBUTING.md): split it by job, not by line count."""
    modules = [p for folder in ("core", "gui", "bench", "devtools") for p in sorted((REPO / folder).rglob("*.py"))]
    offenders = [f"{p.relative_to(REPO)}: {n}" for p in modules
                 if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400]
    assert offenders == []


def test_the_import_contracts_hold() -> None:
    """The layers, the gui rooms and the acyclic packages of pyproject.toml, checked as CI checks them."""
    linter = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(linter), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:]
    assert "Contracts: 7 kept, 0 broken." in out.stdout
