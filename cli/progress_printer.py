"""Progress lines on stderr for long CLI work (stdout stays clean for --json)."""

from __future__ import annotations

import sys
import time

from core.progress import Progress


def stderr_progress(label: str, every_seconds: float = 0.5) -> Progress:
    """A :class:`Progress` that prints ``label: done/total message`` at most twice a second."""
    last = [0.0]

    def report(done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if done == total or now - last[0] >= every_seconds:
            last[0] = now
            suffix = f" {message}" if message else ""
            print(f"{label}: {done}/{total}{suffix}", file=sys.stderr, flush=True)

    return Progress(callback=report)
