"""Where bundled resources live, in a source checkout and in a PyInstaller bundle alike."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"
