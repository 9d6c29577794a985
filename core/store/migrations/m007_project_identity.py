"""Schema 7: who a project file is, which copy of it this is, and how far its history has come.

One row in ``project_identity``:

* ``project_id`` — made once when the project is created (or first upgraded) and carried by every
  copy and backup, so a restore can tell this project's backups from another project's.
* ``copy_id`` — changed in every backup copy and by every restore, so a window or batch import that
  has the project open notices at its next write that the file under it was restored (and writes
  nothing on top of a state it never read).
* ``revision`` — counts committed write transactions; restores continue above the state they
  replaced.  "Newest backup" means the highest revision, not the latest file name: a laptop with a
  wrong clock can name a backup in the future, it cannot make it hold later acts.
* ``last_act_at`` — when the last write was committed (shown in ``restore --list``).
* ``backup_problem`` / ``backup_problem_at`` — why the last automatic backup failed, or NULL.

And ``decisions.pins_from``: a decision whose pins are those of an earlier row names that row instead
of copying its pins (with 10,000 pins, every note or value used to copy all of them: 320 KB an act).
"""

from __future__ import annotations

import uuid

import sqlite_utils

from core.timestamps import now_iso


def migrate(db: sqlite_utils.Database) -> None:
    db.table("project_identity").create(
        {"id": int, "project_id": str, "copy_id": str, "revision": int, "created_at": str, "last_act_at": str,
         "backup_problem": str, "backup_problem_at": str},
        pk="id", not_null={"project_id", "copy_id", "revision"},
    )
    db.execute("ALTER TABLE decisions ADD COLUMN pins_from INTEGER REFERENCES decisions(id)")
    now = now_iso()
    db.conn.execute(
        "INSERT INTO project_identity (id, project_id, copy_id, revision, created_at, last_act_at) "
        "VALUES (1, ?, ?, 0, ?, ?)", (uuid.uuid4().hex, uuid.uuid4().hex, now, now))
