"""Habits CI keeps (issue 29): lists of known exceptions that may only shrink, and classes of a readable size.

Why a test and not a comment: a list in pyproject.toml that "may only shrink" grows the day someone adds
a module to it to get past a red check; here adding one fails, and taking one off (once it is clean)
is the only edit that passes.  Read from the files (ast, tomllib), so tests/core still needs no Qt.
"""

from __future__ import annotations

import ast
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "gui", "cli", "bench", "devtools")

# gui modules that mypy does not report on yet (pyproject.toml, the override with ignore_errors): owned by
# parallel branches when gui/ joined the mypy run. Take a module off both lists when it is clean.
MYPY_NOT_YET_CLEAN: set[str] = set()  # empty since issue 29: every gui module is type-clean

# A class is one job: at most this many methods and lines, counted across the project's own bases and
# mixins (a mixin's methods are the class's methods; Qt's are not counted).
CLASS_METHODS = 30
CLASS_LINES = 400
# Classes over either limit today; the "split by job, by composition" takes them off (only shrinks).
CLASSES_OVER_THE_LIMIT: set[str] = set()  # empty since issue 29's splits by composition


def _mypy_overrides() -> list[dict]:
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["mypy"]["overrides"]


def test_mypy_checks_gui_and_bench() -> None:
    with open(REPO / "pyproject.toml", "rb") as fh:
        files = tomllib.load(fh)["tool"]["mypy"]["files"]
    assert {"core", "cli", "gui", "bench"} <= set(files)


def test_the_list_of_gui_modules_not_yet_type_clean_only_shrinks() -> None:
    ignored = {m for o in _mypy_overrides() if o.get("ignore_errors") for m in o["module"]}
    added = ignored - MYPY_NOT_YET_CLEAN
    assert not added, f"{sorted(added)}: make it type-clean instead (the list in pyproject.toml may only shrink)"
    assert not any(m.endswith("*") for m in ignored), "list modules one by one, never a whole package"
    stale = MYPY_NOT_YET_CLEAN - ignored
    assert not stale, f"{sorted(stale)} left pyproject.toml's list: take it off MYPY_NOT_YET_CLEAN here too"


@dataclass
class _Class:
    module: str
    methods: set[str]
    bases: list[str]
    lines: int


@dataclass
class _Classes:
    """Every top-level class of the project's packages, and what each module imports from them."""

    classes: dict[tuple[str, str], _Class] = field(default_factory=dict)
    imports: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)

    def resolve(self, module: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """The class ``name`` means in ``module``: defined there, or imported (through re-exports too)."""
        if (module, name) in self.classes:
            return (module, name)
        source = self.imports.get(module, {}).get(name)
        return None if source is None or depth > 5 else self.resolve(*source, depth + 1)

    def size(self, key: tuple[str, str]) -> tuple[int, int]:
        """Methods (each name once) and lines of a class together with all its project bases."""
        methods: set[str] = set()
        lines, todo, seen = 0, [key], set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            cls = self.classes[current]
            methods |= cls.methods
            lines += cls.lines
            todo += [r for base in cls.bases if (r := self.resolve(cls.module, base)) is not None]
        return len(methods), lines


def _project_classes() -> _Classes:
    found = _Classes()
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            module = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            found.imports[module] = {alias.asname or alias.name: (node.module, alias.name)
                                     for node in ast.walk(tree)
                                     if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                                     and node.module.split(".")[0] in PACKAGES
                                     for alias in node.names}
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
                    bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    found.classes[(module, node.name)] = _Class(module, methods, bases, lines)
    return found


def test_bases_and_mixins_are_counted_with_the_class_they_are_part_of() -> None:
    """A mixin imported from another module counts with the class (a split by file is no split by job)."""
    found = _Classes()
    found.classes[("gui.a", "Part")] = _Class("gui.a", {"load", "save"}, [], 30)
    found.classes[("gui.b", "View")] = _Class("gui.b", {"load", "show"}, ["Part", "QWidget"], 20)
    found.imports["gui.b"] = {"Part": ("gui.a", "Part")}
    assert found.size(("gui.b", "View")) == (3, 50)  # "load" once; Qt's QWidget not counted


def test_no_class_grows_past_the_limits() -> None:
    found = _project_classes()
    assert len(found.classes) > 100
    over = {f"{module}.{name}": size for (module, name) in found.classes
            if (size := found.size((module, name)))[0] > CLASS_METHODS or size[1] > CLASS_LINES}
    new = {name: f"{m} methods, {n} lines" for name, (m, n) in over.items() if name not in CLASSES_OVER_THE_LIMIT}
    assert not new, f"split by job (limits {CLASS_METHODS} methods, {CLASS_LINES} lines across bases): {new}"
    stale = CLASSES_OVER_THE_LIMIT - set(over)
    assert not stale, f"{sorted(stale)} is within the limits now: take it off CLASSES_OVER_THE_LIMIT"
