"""A batch import backs the project up before its first answer is stored (issue 19).

One "before-import" backup per import that stores something, holding the project as it was
before that import; none for an import that stores nothing (a file imported before, a file of
another batch); and a backup that cannot be written is a warning of the report, never a stop.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from core.profile.batch_files import import_batch_results
from core.store import open_project
from core.store.backups import backup_dir, check_backup, list_backups
from tests.batch_results import dumps, requests_by_feature, result_for, write_requests

FEATURES = ["81A", "GB107", "GB020"]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, list[dict]]:
    """(a closed project file, its request lines in FEATURES order), written once for the module."""
    path, requests = write_requests(tmp_path_factory.mktemp("backup"), "master.grammarlens", FEATURES)
    lines = requests_by_feature(requests)
    return path, [lines[f] for f in FEATURES]


@pytest.fixture
def project(written, tmp_path) -> Path:
    path = tmp_path / "testish.grammarlens"
    shutil.copy(written[0], path)
    return path


def result_line(request: dict) -> str:
    """The Batch API's result line for a request: its first option (or every strategy present)."""
    return dumps(result_for(request)).decode("utf-8")


def results_file(folder: Path, name: str, lines: list[str]) -> Path:
    path = folder / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def before_import(path: Path) -> list[Path]:
    return [b.path for b in list_backups(path) if b.reason == "before-import"]


def stored(database: Path) -> list[str]:
    """The features classified in a project or backup file (read through SQLite, read-only)."""
    conn = sqlite3.connect(f"{database.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return sorted(r[0] for r in conn.execute("SELECT feature_id FROM classifications"))
    finally:
        conn.close()


def test_each_import_that_stores_answers_takes_one_backup_of_the_project_before_it(written, project, tmp_path):
    requests = written[1]
    first = import_batch_results([project], results_file(tmp_path, "first.jsonl", [result_line(requests[0])]))
    assert first.imported == 1 and first.warnings == []
    [one] = before_import(project)
    assert check_backup(one) is None and stored(one) == []  # the project before the first import

    second = import_batch_results([project], results_file(tmp_path, "all.jsonl", [result_line(r) for r in requests]))
    assert (second.imported, second.already, second.warnings) == (2, 1, [])
    assert "Warning" not in second.outcome() and second.to_json()["warnings"] == []
    newest = before_import(project)[0]
    assert len(before_import(project)) == 2 and newest != one
    assert stored(newest) == ["81A"]  # the project before the second import: the first's answer only
    assert stored(project) == sorted(FEATURES)


def test_an_import_that_stores_nothing_takes_no_backup(written, project, tmp_path):
    requests = written[1]
    lines = [result_line(r) for r in requests]
    import_batch_results([project], results_file(tmp_path, "all.jsonl", lines))
    assert len(before_import(project)) == 1
    again = import_batch_results([project], results_file(tmp_path, "again.jsonl", lines))
    assert again.already == 3 and again.imported == 0
    other = [line.replace("gl1:", "request-") for line in lines]  # the result file of another batch
    foreign = import_batch_results([project], results_file(tmp_path, "other.jsonl", other))
    assert foreign.unknown == 3 and foreign.imported == 0
    assert len(before_import(project)) == 1


def test_a_backup_that_cannot_be_written_is_a_warning_and_the_import_goes_on(written, project, tmp_path):
    backup_dir(project).write_text("a file where the backup folder should be", encoding="utf-8")
    report = import_batch_results([project], results_file(tmp_path, "all.jsonl",
                                                           [result_line(r) for r in written[1]]))
    assert report.imported == 3 and report.not_imported == 0
    assert stored(project) == sorted(FEATURES)
    [warning] = report.warnings
    assert warning.startswith(f"No backup of {project.name} could be taken before the import, which went on: ")
    assert "Cannot create the backup folder" in warning and "writable" in warning
    assert report.outcome().endswith(f"Warning: {warning}") and report.to_json()["warnings"] == [warning]
    with open_project(project, readonly=True) as opened:
        assert opened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
