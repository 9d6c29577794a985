"""Numbered, append-only schema migrations.

Each module ``mNNN_<what>.py`` defines ``migrate(db)``; migration NNN brings the schema from
version NNN-1 to NNN and runs in one transaction with the ``PRAGMA user_version`` bump.
Never edit a migration that has landed: add the next number instead.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Callable

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]


def _discover() -> list[Migration]:
    found: dict[int, Migration] = {}
    for info in pkgutil.iter_modules(__path__):
        match = re.fullmatch(r"m(\d{3})_\w+", info.name)
        if match:
            module = importlib.import_module(f"{__name__}.{info.name}")
            found[int(match.group(1))] = module.migrate
    numbers = sorted(found)
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..N without gaps, found {numbers}")
    return [found[n] for n in numbers]


MIGRATIONS: list[Migration] = _discover()
