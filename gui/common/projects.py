"""Where projects live: the recent list, the demo project, the data folder's projects.

Kept apart from the window so the start-up choice (last project, else the demo) is one
small function the app and the tests share.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from core.store import PROJECT_SUFFIX

RECENT_KEY = "projects/recent"
MAX_RECENT = 8
DEMO_DIR_NAME = "demo"
DEMO_PROJECT_NAME = f"Veshari demo{PROJECT_SUFFIX}"


def data_dir() -> Path:
    """The per-user data folder (e.g. ~/.local/share/GrammarLens/GrammarLens)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    path = Path(base) if base else Path.home() / ".grammarlens"
    path.mkdir(parents=True, exist_ok=True)
    return path


def projects_dir() -> Path:
    """The data folder's ``projects`` folder: new projects go here when nothing better is known."""
    folder = data_dir() / "projects"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def demo_project_path() -> Path:
    return data_dir() / DEMO_DIR_NAME / DEMO_PROJECT_NAME


def is_demo_project(path: Path | None) -> bool:
    return path is not None and path.resolve() == demo_project_path().resolve()


def project_for_pdf(pdf_path: Path) -> Path:
    """A fresh project path for a PDF dropped while no real project is open."""
    stem = re.sub(r"[^\w.-]+", "_", pdf_path.stem).strip("_") or "grammar"
    folder = projects_dir()
    candidate = folder / f"{stem}{PROJECT_SUFFIX}"
    n = 2
    while candidate.exists():
        candidate = folder / f"{stem}-{n}{PROJECT_SUFFIX}"
        n += 1
    return candidate


def recent_projects(store: QSettings | None = None) -> list[Path]:
    store = store or QSettings()
    raw = store.value(RECENT_KEY, [])
    if isinstance(raw, str):
        raw = [raw]
    return [Path(p) for p in (raw if isinstance(raw, list | tuple) else []) if p]


def remember_project(path: Path, store: QSettings | None = None) -> None:
    store = store or QSettings()
    items = [p for p in recent_projects(store) if p.resolve() != path.resolve()]
    store.setValue(RECENT_KEY, [str(path)] + [str(p) for p in items[: MAX_RECENT - 1]])


def forget_project(path: Path, store: QSettings | None = None) -> None:
    store = store or QSettings()
    store.setValue(RECENT_KEY, [str(p) for p in recent_projects(store) if p != path])


def startup_project(store: QSettings | None = None) -> Path | None:
    """The last project that still exists, or None (then the app opens the demo)."""
    return next((p for p in recent_projects(store) if p.exists()), None)
