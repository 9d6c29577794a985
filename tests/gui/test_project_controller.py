"""The project controller: open, refuse, open a grammar PDF (its own project beside it, never the demo), drop."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.store import PROJECT_SUFFIX
from gui.common import projects
from gui.common.operations import OperationRunner
from gui.common.window_state import WindowState
from gui.project.project_controller import ProjectController

WAIT_MS = 20_000


@pytest.fixture
def controller(qtbot, gui_store):
    runner = OperationRunner()
    controller = ProjectController(WindowState(), runner, gui_store)
    yield controller
    controller.close()
    assert runner.shutdown(10_000)


def test_opening_a_project_fills_the_state_and_remembers_it(qtbot, controller, demo_project, gui_store) -> None:
    with qtbot.waitSignal(controller.opened, timeout=1000) as opened:
        assert controller.open(demo_project)
    assert opened.args == [str(demo_project)]
    state = controller.state
    assert state.project_path == demo_project and len(state.documents) == 1
    assert controller.language_name().startswith("Veshari")
    labels = controller.page_labels(state.documents[0].id)
    assert labels[1] == "i" and "3" in labels.values()
    assert projects.recent_projects(gui_store)[0] == demo_project
    with qtbot.waitSignals([controller.aboutToClose, controller.closed], timeout=1000):
        controller.close()
    assert state.project_path is None and controller.project is None


def test_a_file_that_is_not_a_project_is_refused_with_a_message(qtbot, controller, tmp_path) -> None:
    bogus = tmp_path / f"notes{PROJECT_SUFFIX}"
    bogus.write_text("not a database", encoding="utf-8")
    with qtbot.waitSignal(controller.failed, timeout=1000) as failed:
        assert not controller.open(bogus)
    assert failed.args[0] == "Cannot open this project" and failed.args[1].hint
    assert bogus.read_text(encoding="utf-8") == "not a database"  # left untouched


def test_a_broken_pdf_dropped_on_the_demo_leaves_no_project_behind(qtbot, controller, tmp_path, monkeypatch,
                                                                   demo_project) -> None:
    monkeypatch.setattr(projects, "demo_project_path", lambda: demo_project)  # the demo is what is open
    assert controller.open(demo_project)
    broken = tmp_path / "broken grammar.pdf"
    broken.write_bytes(b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF garbage")
    assert controller.accepts([Path("x.txt"), broken]) and not controller.accepts([Path("x.txt")])
    failures: list[str] = []
    controller.failed.connect(lambda title, exc: failures.append(title))
    with qtbot.waitSignal(controller.ingestFinished, timeout=WAIT_MS) as finished:
        assert controller.drop([broken])
    assert failures == ["Cannot read broken grammar.pdf"] and finished.args == [False]
    assert not list(tmp_path.glob("broken*.grammarlens*"))  # the project made beside it was removed again
    assert list(projects.projects_dir().iterdir()) == []  # nor in the data folder
    assert controller.state.project_path == demo_project  # the demo is still open


def test_a_pdf_opened_with_no_project_open_is_read_into_a_project_beside_it(qtbot, controller, tmp_path) -> None:
    from tests.fixtures_ingest import write_sample_book

    pdf = write_sample_book(tmp_path / "teshi.pdf").path
    added: list[bool] = []
    controller.ingestFinished.connect(added.append)
    with qtbot.waitSignal(controller.opened, timeout=WAIT_MS) as opened:
        assert controller.add_pdf(pdf) is not None  # Add grammar with nothing open: Open grammar PDF
    assert opened.args == [str(tmp_path / f"teshi{PROJECT_SUFFIX}")] and len(controller.state.documents) == 1
    qtbot.waitUntil(lambda: added == [True], timeout=WAIT_MS)
    assert controller.language().name == "Teshi"  # stored by the reading (an unsure guess)
    assert controller.open_pdf(pdf) is True and controller.state.project_path == tmp_path / f"teshi{PROJECT_SUFFIX}"


def test_a_new_project_gets_its_suffix_and_opens_empty(qtbot, controller, tmp_path) -> None:
    with qtbot.waitSignal(controller.opened, timeout=1000):
        assert controller.new(tmp_path / "my language")
    assert controller.state.project_path == tmp_path / f"my language{PROJECT_SUFFIX}"
    assert controller.state.documents == [] and not controller.state.has_grammar


def test_setting_a_glottocode_the_table_does_not_know_says_so_in_the_status_bar(qtbot, controller, tmp_path) -> None:
    from core.models import Language
    from core.store import create_project
    from core.store.repository import get_language

    path = tmp_path / f"p{PROJECT_SUFFIX}"
    create_project(path).close()
    assert controller.open(path)
    messages: list[tuple[str, int]] = []
    controller.message.connect(lambda text, ms: messages.append((text, ms)))
    assert controller.set_language(Language("Newish", " NEWI1234", "user"))
    text, ms = messages[-1]
    assert text.startswith("Language set to Newish (newi1234). Note: newi1234 is not in") and ms > 5000
    assert get_language(controller.project).glottocode == "newi1234"
    assert controller.set_language(Language("Moloko", "molo1266", "user"))
    assert messages[-1] == ("Language set to Moloko (molo1266).", 5000)


def test_the_file_is_current_when_the_window_loses_focus_and_a_failed_backup_is_said(
        qtbot, controller, tmp_path) -> None:
    """Issue 26: a copy of the file taken while the window is open holds every act; a failed backup is told."""
    import shutil
    import sqlite3
    import subprocess

    from PySide6.QtCore import Qt

    from core import coding
    from core.store import backups, open_project

    path = tmp_path / "synced.grammarlens"
    open_project(path, create=True).close()
    shutil.rmtree(backups.backup_dir(path), ignore_errors=True)
    backups.backup_dir(path).write_text("a file where the backups folder goes")
    with qtbot.waitSignal(controller.message, timeout=1000) as told:
        assert controller.open(path)
    assert "No backup could be taken" in told.args[0]
    assert not controller.backup_banner.isHidden() and "backup folder" in controller.backup_banner.label.text()
    for i in range(20):
        coding.add_note(controller.project, "GB020", f"act-{i}")
    controller.application_state_changed(Qt.ApplicationState.ApplicationInactive)  # before the idle checkpoint
    copy = tmp_path / "copy.grammarlens"
    subprocess.run(["cp", str(path), str(copy)], check=True)  # another program copies it (this one may not open it)
    conn = sqlite3.connect(f"{copy.as_uri()}?mode=ro&immutable=1", uri=True)
    assert conn.execute("SELECT count(*) FROM decisions").fetchone()[0] == 20
    conn.close()
    controller.close()
    assert controller.backup_banner.isHidden()
