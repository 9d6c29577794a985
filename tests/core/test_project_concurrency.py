"""Concurrent use of one project is a contract: CLI loops, an in-process writer, raced pins and undos.

Every act is a real ``python main.py code ...`` handler run inside real separate processes (the CLI's
own ``cli.main``, looped in one interpreter per process so that 100 acts do not cost 100 start-ups),
writing to one real project file at the same time as a thread of this process.  Before ``BEGIN
IMMEDIATE``, acts failed at once with "locked" (deferred transactions do not wait), and acts that
read the state outside their write transaction lost updates: two processes adding 120 pins kept 100.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from core import coding
from core.errors import ProjectError
from core.models import LabelSource, Language, Paragraph, ParagraphKind
from core.store import create_project, database, open_project
from core.store.repository import insert_document, list_paragraphs, set_language

REPO = Path(__file__).resolve().parents[2]

_CLI_LOOP = r"""
import contextlib, io, json, sys
import cli
path, acts = sys.argv[1], json.loads(sys.argv[2])
codes = []
for act in acts:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        codes.append(cli.main(["code", path, *act]))
    if codes[-1] != 0:
        print(err.getvalue(), file=sys.stderr)
print(json.dumps(codes))
"""


def _project_with_paragraphs(path: Path, count: int) -> list[int]:
    """A real project file holding ``count`` paragraphs on printed pages 1..count; returns their ids."""
    project = create_project(path)
    try:
        set_language(project, Language(name="Testish", glottocode=None, source="user"))
        paragraphs = [Paragraph(id=0, document_id=0, seq=i, pdf_page=i, page_label=str(i + 1),
                                label_source=LabelSource.PDF_LABELS, section="Syntax", kind=ParagraphKind.PROSE,
                                text=f"Paragraph {i} about word order and negation.") for i in range(count)]
        pages = [(i, str(i + 1), LabelSource.PDF_LABELS, 595.0, 842.0, 40) for i in range(count)]
        insert_document(project, sha256="1" * 64, file_name="t.pdf", path=str(path.with_suffix(".pdf")),
                        title="A grammar of Testish", page_count=count, label_source=LabelSource.PDF_LABELS,
                        pdf_page_of_printed_1=0, pages=pages, paragraphs=paragraphs)
        return [p.id for p in list_paragraphs(project)]
    finally:
        project.close()


def _start_cli_loop(path: Path, acts: list[list[str]]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", _CLI_LOOP, str(path), json.dumps(acts)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen) -> list[int]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    codes = json.loads(out.strip().splitlines()[-1])
    assert set(codes) == {0}, err[-3000:]
    return codes


def _integrity(path: Path) -> str:
    with open_project(path, backup=False) as project:
        return project.conn.execute("PRAGMA integrity_check").fetchone()[0]


def _decision_rows(path: Path, action: str | None = None) -> int:
    with open_project(path, backup=False) as project:
        sql = "SELECT count(*) FROM decisions" + (" WHERE action = ?" if action else "")
        return project.conn.execute(sql, (action,) if action else ()).fetchone()[0]


@pytest.mark.slow
def test_two_cli_loops_and_an_in_process_writer_store_all_300_acts(tmp_path: Path) -> None:
    path = tmp_path / "shared.grammarlens"
    _project_with_paragraphs(path, 4)
    # the same two features from every writer, so that the acts really contend for the same rows
    loop = [["--feature", feature, "--value", value] for _ in range(50) for feature, value in
            (("GB020", "1"), ("81A", "SOV"))]
    procs = [_start_cli_loop(path, loop) for _ in range(2)]
    errors: list[BaseException] = []

    def in_app() -> None:
        try:
            with open_project(path, backup=False) as project:  # the window's connection, in its own thread
                for i in range(100):
                    coding.code(project, "GB020" if i % 2 else "81A", "0" if i % 2 else "SVO", reviewer="app")
        except BaseException as exc:
            errors.append(exc)

    writer = threading.Thread(target=in_app)
    writer.start()
    codes = [code for proc in procs for code in _finish(proc)]
    writer.join(timeout=300)
    assert not errors, errors
    assert len(codes) == 200
    assert _decision_rows(path) == 300
    assert _integrity(path) == "ok"


@pytest.mark.slow
def test_raced_pins_and_undos_are_each_applied_exactly_once(tmp_path: Path) -> None:
    path = tmp_path / "race.grammarlens"
    ids = _project_with_paragraphs(path, 120)
    with open_project(path, backup=False) as project:
        coding.code(project, "GB020", "1", reviewer="setup")
    halves = [ids[:60], ids[60:]]
    procs = [_start_cli_loop(path, [["--feature", "GB020", "--pin", str(pid)] for pid in half]) for half in halves]
    for proc in procs:
        _finish(proc)
    with open_project(path, backup=False) as project:
        pins = coding.current_pins(project, "GB020")
    assert sorted(p.paragraph_id for p in pins) == sorted(ids)  # 120 pins, none lost, none twice
    assert _integrity(path) == "ok"

    with open_project(path, backup=False) as project:
        for i in range(60):
            coding.code(project, "81A", "SOV" if i % 2 else "SVO", reviewer="setup")
    procs = [_start_cli_loop(path, [["--feature", "81A", "--undo"]] * 30) for _ in range(2)]
    for proc in procs:
        _finish(proc)
    with open_project(path, backup=False) as project:
        assert coding.current(project, "81A") is None  # 60 undos cancelled exactly the 60 decisions
        undone = {d.undoes for d in coding.history(project, "81A") if d.action == "undo"}
    assert len(undone) == 60
    assert _integrity(path) == "ok"


def test_a_write_waits_for_another_writer_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "wait.grammarlens"
    _project_with_paragraphs(path, 2)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)  # another program's connection
    other.execute("BEGIN IMMEDIATE")  # ... in the middle of a write for a second
    release = threading.Timer(1.0, lambda: other.execute("COMMIT"))
    release.start()
    try:
        with open_project(path, backup=False) as project:
            decision = coding.code(project, "GB020", "1")  # waits, then stores
    finally:
        release.join()
        other.close()
    assert decision.code == "1"
    assert _decision_rows(path) == 1


def test_an_act_that_cannot_get_the_lock_in_time_says_so_and_stores_nothing(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "stuck.grammarlens"
    _project_with_paragraphs(path, 2)
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 300)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock for longer than the timeout
    try:
        with open_project(path, backup=False) as project:
            with pytest.raises(ProjectError, match="is busy"):
                coding.code(project, "GB020", "1")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert _decision_rows(path) == 0
