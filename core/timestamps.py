"""The one way GrammarLens stamps rows with a time.

Every stored ``created_at``/``updated_at``/``ingested_at`` is UTC in ISO 8601 to the second
(``2026-12-01T06:25:35+00:00``): it sorts as text, so SQL ``ORDER BY`` and Python ``max`` agree,
and it reads the same on every machine whatever its time zone.
"""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    """The current UTC time as stored in project files."""
    return datetime.now(UTC).isoformat(timespec="seconds")
