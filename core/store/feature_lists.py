"""Saved custom feature lists (schema 4): a name and its feature ids, in the user's order."""

from __future__ import annotations

import json

from core.store.database import ProjectDatabase
from core.timestamps import now_iso


def put_feature_list(project: ProjectDatabase, name: str, feature_ids: list[str]) -> None:
    """Save (or replace) the list ``name``; the caller checks the ids."""
    with project.transaction():
        project.conn.execute("INSERT OR REPLACE INTO feature_lists (name, feature_ids, created_at) VALUES (?,?,?)",
                             (name, json.dumps(feature_ids), now_iso()))


def get_feature_list(project: ProjectDatabase, name: str) -> list[str] | None:
    row = project.conn.execute("SELECT feature_ids FROM feature_lists WHERE name = ?", (name,)).fetchone()
    return json.loads(row[0]) if row else None


def list_feature_lists(project: ProjectDatabase) -> dict[str, list[str]]:
    rows = project.conn.execute("SELECT name, feature_ids FROM feature_lists ORDER BY name").fetchall()
    return {r[0]: json.loads(r[1]) for r in rows}
