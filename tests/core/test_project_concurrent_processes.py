"""Two GrammarLens processes on one project file at once (two ``bench profile`` runs sharing a work folder).

The bug this guards: opening a project used to read its header with a plain ``open()``; closing that
descriptor dropped the POSIX locks the same process held through another live connection (a job's
main thread while a worker opens its own).  The other process then took itself for the last user,
deleted the -wal and -shm files, and the live writer failed with "disk I/O error".
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from core.models import Language
from core.store import open_project
from core.store.repository import get_language, set_language

REPO = Path(__file__).resolve().parents[2]
SECONDS = 3.0

# "holder" keeps one connection open and writes through it while it opens (and closes) other
# connections to the same file, as run_job's main thread and workers do; "cycler" opens, writes and
# closes again and again, as a second run preparing and reading the same project does.
_WORKER = r"""
import json, sys, time
from pathlib import Path
from core.models import Language
from core.store import open_project
from core.store.repository import get_language, set_language

path, role, seconds = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
errors, n, last = [], 0, None
held = open_project(path) if role == "holder" else None
deadline = time.monotonic() + seconds
while time.monotonic() < deadline and len(errors) < 5:
    last = f"{role}-{n}"
    try:
        if held is not None:
            with open_project(path, readonly=True) as other:
                get_language(other)
            with open_project(path) as other:
                get_language(other)
            set_language(held, Language(last, "abcd1234", "user"))
        else:
            with open_project(path) as project:
                set_language(project, Language(last, "abcd1234", "user"))
            with open_project(path, readonly=True) as project:
                get_language(project)
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    n += 1
if held is not None:
    held.close()
print(json.dumps({"role": role, "rounds": n, "errors": errors}))
"""


def test_two_processes_share_a_project_without_io_errors(tmp_path: Path) -> None:
    path = tmp_path / "shared.grammarlens"
    open_project(path, create=True).close()
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(path), role, str(SECONDS)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for role in ("holder", "cycler")]
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=SECONDS + 12)
            assert proc.returncode == 0, err
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    for result in results:
        assert result["rounds"] > 10, result  # both really ran side by side
        assert result["errors"] == [], result
    with open_project(path) as project:  # the file is still a sound project afterwards
        assert get_language(project) is not None
        set_language(project, Language("after", "abcd1234", "user"))
        assert get_language(project).name == "after"


_CREATOR = r"""
import json, sys, time
from pathlib import Path
from core.errors import GrammarLensError
from core.store import create_project

folder, rounds, start_at = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
time.sleep(max(0.0, start_at - time.time()))  # both processes start creating together
made, refused, other = 0, 0, []
for i in range(rounds):
    try:
        create_project(folder / f"p{i}.grammarlens").close()
        made += 1
    except GrammarLensError as exc:
        refused += 1
        if "already exists" not in str(exc):
            other.append(str(exc))
print(json.dumps({"made": made, "refused": refused, "other": other}))
"""


def test_two_processes_creating_the_same_projects_never_lose_one(tmp_path: Path) -> None:
    """Each name is won by exactly one process; the other is told it exists and deletes nothing."""
    rounds = 150
    start_at = str(time.time() + 3.0)  # after both interpreters have imported core.store
    procs = [subprocess.Popen([sys.executable, "-c", _CREATOR, str(tmp_path), str(rounds), start_at], cwd=REPO,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    results = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    assert all(r["other"] == [] for r in results), results
    assert sum(r["made"] for r in results) == rounds
    for i in range(rounds):
        project = open_project(tmp_path / f"p{i}.grammarlens")
        try:
            assert project.schema_version() > 0
        finally:
            project.close()
