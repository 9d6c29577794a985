"""Who made an act: the one reviewer-name lookup of the window and the command line.

Why one: every decision is stamped with its coder, and a second coder's queue shows the name of
each side, so the window and ``code``/``compare`` must arrive at the same name.  They did not: the
window fell back on the login name (or "reviewer"), the CLI on ``$GRAMMARLENS_REVIEWER`` then the
login name (or nothing), and nobody was ever asked, so every act read "root".  Now the window asks
the coder's name once, at the first act, and keeps it in its settings and here, in a small file
in the user's configuration folder (``~/.config/GrammarLens/coder.json`` on Linux, beside the
window's own settings), which the CLI reads too.

The order, for both: the name chosen there (the CLI's ``--reviewer``, the window's setting), then
``$GRAMMARLENS_REVIEWER``, then the saved file, then the login name.
"""

from __future__ import annotations

import getpass
import json
import os
import sys
from pathlib import Path

ENV_VAR = "GRAMMARLENS_REVIEWER"
APP_FOLDER = "GrammarLens"
FILE_NAME = "coder.json"


def config_folder() -> Path:
    """The user's configuration folder of GrammarLens (where Qt keeps the window's settings on Linux too)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Preferences"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / APP_FOLDER


def saved_name() -> str:
    """The coder's name as the window saved it; "" when none was (or the file cannot be read)."""
    try:
        data = json.loads((config_folder() / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name.strip() if isinstance(name, str) else ""


def save_name(name: str) -> None:
    """Keep ``name`` for the CLI (an empty name forgets it); written whole, then moved into place."""
    path = config_folder() / FILE_NAME
    if not name.strip():
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{FILE_NAME}.partial")
    partial.write_text(json.dumps({"name": name.strip()}, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, path)


def known_name(given: str | None = None) -> str:
    """The name somebody gave: ``given``, else ``$GRAMMARLENS_REVIEWER``, else the saved file's; "" if none."""
    if given is not None and given.strip():
        return given.strip()
    return os.environ.get(ENV_VAR, "").strip() or saved_name()


def reviewer_name(given: str | None = None) -> str:
    """The name an act is stamped with: :func:`known_name`, else the login name, else "".

    ``given`` is the name chosen for this act: the CLI's ``--reviewer`` (an empty one stays empty:
    "nobody"), the window's own setting (None when empty, which the window and the file share).
    """
    if given is not None and not given.strip():
        return ""
    name = known_name(given)
    if name:
        return name
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):  # no login name in this environment (no USER, no passwd entry)
        return ""
