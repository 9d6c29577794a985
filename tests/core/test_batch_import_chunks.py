"""A long batch import commits in chunks, so the app and the CLI can write to the project meanwhile (issue 19).

The project is the small Testish one with requests for every Grambank and WALS feature in two
configurations (774 lines), written once per module; answers are made from each request's schema.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from core.profile.batch_files import import_batch_results
from core.progress import Progress
from core.store import open_project
from tests.batch_results import table_counts, write_long_results


@pytest.fixture(scope="module")
def long_file(tmp_path_factory) -> tuple[Path, Path, int]:
    """(a closed project, its results file, the number of lines), written once for the module."""
    return write_long_results(tmp_path_factory.mktemp("chunks"), "master.grammarlens")


@pytest.fixture
def project(long_file, tmp_path) -> Path:
    path = tmp_path / "testish.grammarlens"
    shutil.copy(long_file[0], path)
    return path


def classifications(path: Path) -> int:
    with open_project(path, readonly=True) as p:
        return p.conn.execute("SELECT count(*) FROM classifications").fetchone()[0]


def test_each_chunk_is_committed_and_the_lock_is_free_between_chunks(long_file, project, monkeypatch):
    """Between two chunks another connection takes the write lock without waiting and sees the chunk's lines."""
    from core.coding.feature_sets import save_feature_list

    monkeypatch.setattr("core.profile.batch_files.importing.CHUNK_LINES", 100)
    monkeypatch.setattr("core.profile.batch_files.importing.CHUNK_SECONDS", 3600.0)
    monkeypatch.setattr("core.profile.batch_files.importing.CHUNK_PAUSE", 0.0)
    seen: list[int] = []
    with open_project(project) as other:
        other.conn.execute("PRAGMA busy_timeout = 0")  # a held lock would fail at once, not wait

        def between_chunks(done: int, total: int, message: str) -> None:
            save_feature_list(other, f"during-{len(seen)}", ["81A"])  # BEGIN IMMEDIATE: the lock is free
            seen.append(other.conn.execute("SELECT count(*) FROM classifications").fetchone()[0])

        report = import_batch_results([project], long_file[1], Progress(between_chunks))
    total = long_file[2]
    assert report.imported == total
    assert seen == [*range(100, total, 100), total]  # each chunk of 100 committed, then the end


def test_the_app_writes_to_the_project_during_a_long_import(long_file, project, monkeypatch):
    """A writer in another thread (its own connection, as the app's) stores every few ms while the file imports.

    Chunks of 20 ms here make the import many chunks long.  With the whole file in one transaction
    the writer waited for the whole import; with chunks but no pause after them, for many chunks
    (its busy handler polls at widening intervals and kept finding the next chunk holding the lock:
    0.7 s behind 0.1 s chunks in another process).
    """
    from core.coding.feature_sets import save_feature_list

    monkeypatch.setattr("core.profile.batch_files.importing.CHUNK_SECONDS", 0.02)

    stop = threading.Event()
    waits: list[tuple[float, float]] = []  # (when it began, how long it waited and wrote)
    errors: list[BaseException] = []

    def writer() -> None:
        with open_project(project) as app:
            while not stop.is_set():
                began = time.monotonic()
                try:
                    save_feature_list(app, f"app-{len(waits) % 5}", ["81A", "GB107"])
                except BaseException as exc:
                    errors.append(exc)
                    return
                waits.append((began, time.monotonic() - began))
                time.sleep(0.005)

    thread = threading.Thread(target=writer, name="app-writer")
    thread.start()
    try:
        time.sleep(0.1)
        started = time.monotonic()
        report = import_batch_results([project], long_file[1])
        ended = time.monotonic()
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not errors, errors
    assert report.imported == long_file[2] and classifications(project) == long_file[2]
    during = [w for began, w in waits if started <= began <= ended]
    longest = max(w for _, w in waits)
    assert len(during) >= 5, (len(during), ended - started)  # the app kept writing all along
    assert longest < (ended - started) / 2, (longest, ended - started, len(during))


def test_two_imports_of_one_file_at_once_store_each_answer_once(long_file, project):
    """The app and the CLI importing the same file together: each answer is stored by one of them, once."""
    reports: list = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            reports.append(import_batch_results([project], long_file[1]))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, name=f"import-{i}") for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    total = long_file[2]
    assert sum(r.imported for r in reports) == total and all(r.imported + r.already == total for r in reports)
    assert classifications(project) == total
    with open_project(project, readonly=True) as p:
        linked = p.conn.execute("SELECT count(DISTINCT classification_id) FROM batch_requests").fetchone()[0]
    assert linked == total
    before = table_counts(project)
    assert import_batch_results([project], long_file[1]).already == total and table_counts(project) == before
