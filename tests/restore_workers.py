"""Processes for the restore and shared-file tests (issue 26): each is ``python -m tests.restore_workers ROLE ...``.

Real processes, because the findings are about several programs on one file: a window keeping
the project open, a command restoring it, a copy taken by a sync client, a kill at a random moment.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def writer(path: Path, name: str, seconds: float) -> None:
    """A window: one connection kept open, a note every few ms; prints the notes that were acknowledged."""
    from core import coding
    from core.errors import ProjectError
    from core.store import open_project

    acked, refused, n = [], 0, 0
    deadline = time.monotonic() + seconds
    with open_project(path, backup=False) as project:
        while time.monotonic() < deadline:
            note = f"{name}-{n}"
            n += 1
            try:
                coding.add_note(project, "GB020", note)
            except ProjectError:
                refused += 1
                continue
            acked.append(note)
            time.sleep(0.002)
    print(json.dumps({"acked": acked, "refused": refused}))


def restorer(path: Path, backup: Path, times: int, pause: float) -> None:
    """Restore ``backup`` into ``path`` again and again, as a person trying backups would."""
    from core.store.restore import restore_backup

    safeties = []
    for _ in range(times):
        safety = restore_backup(path, backup).safety
        assert safety is not None
        safeties.append(str(safety.path))
        time.sleep(pause)
    print(json.dumps({"safeties": safeties}))


def hold_after_acts(path: Path, acts: int, seconds: float) -> None:
    """Make ``acts`` acts, say so, and keep the project open (a window left open) for ``seconds``."""
    from core import coding
    from core.store import open_project

    with open_project(path, backup=False) as project:
        for i in range(acts):
            coding.add_note(project, "GB020", f"act-{i}")
        print("done", flush=True)
        time.sleep(seconds)


def restore_once(path: Path, backup: Path) -> None:
    """One restore, to be killed at a random moment."""
    from core.store.restore import restore_backup

    print("start", flush=True)
    restore_backup(path, backup)
    print("restored", flush=True)


if __name__ == "__main__":
    role, args = sys.argv[1], sys.argv[2:]
    if role == "writer":
        writer(Path(args[0]), args[1], float(args[2]))
    elif role == "restorer":
        restorer(Path(args[0]), Path(args[1]), int(args[2]), float(args[3]))
    elif role == "hold":
        hold_after_acts(Path(args[0]), int(args[1]), float(args[2]))
    elif role == "restore-once":
        restore_once(Path(args[0]), Path(args[1]))
    else:
        raise SystemExit(f"unknown role {role}")
