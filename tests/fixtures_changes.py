"""What the window's one runner announces, collected for a test (issue 29's change record)."""

from __future__ import annotations

from core.changes import ProjectChange


def records(window) -> list[tuple[ProjectChange, object]]:
    """Every ``changed(record, initiator)`` of ``window`` from now on, in order, as (record, initiator)."""
    seen: list[tuple[ProjectChange, object]] = []
    window.projects.changes.changed.connect(lambda change, initiator: seen.append((change, initiator)))
    return seen
