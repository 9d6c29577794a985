"""Which GrammarLens this is: the version, and for a desktop build its variant and the day it was built.

A linguist reporting a problem runs ``GrammarLens --version``; the answer must tell two downloads of
the same version apart, so ``packaging/build.py`` writes ``build_info.json`` into the bundle (beside
``resources/``) and this module reads it.  From a source checkout there is no build, and it says so.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from core import __version__

BUILD_INFO_NAME = "build_info.json"


def build_info() -> dict[str, Any]:
    """The bundle's build record (variant, built_at, ...), or {} when running from source or unreadable."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if not frozen_root:
        return {}
    try:
        data = json.loads((Path(frozen_root) / BUILD_INFO_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def version_line() -> str:
    """``GrammarLens 0.1.0 (full build of 2026-12-04 19:02 UTC, linux-x86_64)`` or ``... (from source)``."""
    info = build_info()
    if not info:
        return f"GrammarLens {__version__} (from source)"
    parts = [f"{info.get('variant', '?')} build of {info.get('built_at', 'an unknown date')}"]
    if info.get("platform"):
        parts.append(str(info["platform"]))
    return f"GrammarLens {__version__} ({', '.join(parts)})"
