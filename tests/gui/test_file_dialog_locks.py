"""The app's file choosers list a live project's folder without dropping its SQLite locks.

The bug this guards (issue 19): Qt's stock file dialog opened and closed every file of the folder it
listed to guess its type, which silently released this process's POSIX locks on the open project;
a CLI command on the same file then took itself for the last user and deleted the live -wal, and
the window's next decisions went to a deleted file (11 of 15 decisions survived).  The locks are
read from /proc/locks, the kernel's own table, so the test sees exactly what another process sees.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QFileSystemModel, QWidget

from core import coding
from core.store import open_project
from gui.common import file_dialogs
from tests.cli_runs import run_main
from tests.process_locks import locks_on

LISTING_MS = 1500  # after the folder is loaded, time for Qt's info thread to ask for every icon and type

pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux's /proc/locks")


def _live_project(folder: Path) -> object:
    folder.mkdir(parents=True, exist_ok=True)
    project = open_project(folder / "live.grammarlens", create=True)
    project.conn.execute("SELECT count(*) FROM decisions").fetchone()  # a read: SQLite now holds its shared lock
    return project


def _show_listing(qtbot, dialog: QFileDialog, folder: Path) -> None:
    """Show ``dialog`` on ``folder`` non-modally until Qt has listed it and asked about every file."""
    dialog.setDirectory(str(folder))
    model = dialog.findChild(QFileSystemModel)
    with qtbot.waitSignal(model.directoryLoaded, timeout=10_000):
        dialog.show()
    qtbot.wait(LISTING_MS)
    dialog.close()


def _app_choosers(parent: QWidget, folder: Path) -> dict[str, object]:
    """Every chooser the app has, each answering by showing its real dialog on ``folder``."""
    return {
        "new project": lambda: file_dialogs.choose_new_project(parent),
        "open project": lambda: file_dialogs.choose_project(parent),
        "add grammar": lambda: file_dialogs.choose_grammar(parent, folder),
        "batch out": lambda: file_dialogs.choose_batch_out(parent, folder / "requests.jsonl"),
        "batch results": lambda: file_dialogs.choose_batch_results(parent, folder),
        "export folder": lambda: file_dialogs.choose_folder(parent, "Export", folder),
    }


def test_the_stock_dialog_drops_the_lock_which_the_test_sees(qtbot, tmp_path: Path) -> None:
    """The control: what the test measures is real (a stock Qt dialog and a plain close both drop the lock)."""
    project = _live_project(tmp_path / "stock")
    try:
        assert locks_on(project.path)
        stock = QFileDialog(None, "stock", str(project.path.parent), "PDF files (*.pdf)")
        stock.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        qtbot.addWidget(stock)
        _show_listing(qtbot, stock, project.path.parent)
        assert locks_on(project.path) == []
    finally:
        project.close()
    project = _live_project(tmp_path / "libc")
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # native code, unseen by Python's audit hooks, like Qt's
        libc.close(libc.open(str(project.path).encode(), os.O_RDONLY))
        assert locks_on(project.path) == []
    finally:
        project.close()


def test_every_chooser_of_the_app_keeps_the_projects_locks(qtbot, gui_store, tmp_path: Path, monkeypatch) -> None:
    folder = file_dialogs.projects.data_dir()  # where the project choosers start
    project = _live_project(folder)
    parent = QWidget()
    qtbot.addWidget(parent)
    shown: list[str] = []

    def show_instead_of_exec(dialog: QFileDialog) -> None:
        _show_listing(qtbot, dialog, folder)
        shown.append(dialog.windowTitle())
        assert locks_on(project.path), f"{dialog.windowTitle()!r} dropped the project's lock"

    monkeypatch.setattr(file_dialogs, "_run", show_instead_of_exec)
    try:
        before = locks_on(project.path)
        assert before
        for choose in _app_choosers(parent, folder).values():
            choose()
        assert len(shown) == 6
        assert locks_on(project.path) == before
    finally:
        project.close()


@pytest.mark.slow
def test_dialogs_beside_cli_commands_lose_no_decision(qtbot, gui_store, tmp_path: Path, monkeypatch) -> None:
    """The reported scenario replayed: the window's project open, its choosers on the folder, the CLI beside it."""
    folder = file_dialogs.projects.data_dir()
    project = _live_project(folder)
    path = project.path
    parent = QWidget()
    qtbot.addWidget(parent)
    monkeypatch.setattr(file_dialogs, "_run", lambda dialog: _show_listing(qtbot, dialog, folder))
    choosers = list(_app_choosers(parent, folder).values())
    expected = []
    try:
        for round_ in range(5):
            choosers[round_ % len(choosers)]()
            for feature, value in (("GB020", "1"), ("81A", "SOV")):
                done = run_main("code", path, "--feature", feature, "--value", value, "--reviewer", "cli")
                assert done.returncode == 0, done.stderr
                expected.append(("cli", feature))
            coding.code(project, "GB107", "1" if round_ % 2 else "0", reviewer="app")  # the window's decision
            expected.append(("app", "GB107"))
    finally:
        project.close()
    with open_project(path, backup=False) as reopened:
        stored = [(r, f) for r, f in reopened.conn.execute("SELECT reviewer, feature_id FROM decisions ORDER BY id")]
        assert reopened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert stored == expected  # 15 of 15


@pytest.mark.parametrize("how", ["view", "search"])
def test_the_pdf_view_and_its_search_refuse_a_live_project_and_keep_its_locks(qtbot, tmp_path: Path, how) -> None:
    """Issue 29: the viewer's open and the PDF search opened any path with MuPDF, skipping the project guard."""
    from core.errors import GrammarLensError, PdfError
    from core.progress import null_progress
    from gui.common.backend import search_pdf
    from gui.pdf.page_pixmaps import open_pdf

    project = _live_project(tmp_path)
    before = locks_on(project.path)  # type: ignore[attr-defined]
    assert before
    with pytest.raises(PdfError if how == "view" else GrammarLensError, match="open GrammarLens project"):
        if how == "view":
            open_pdf(project.path)  # type: ignore[attr-defined]
        else:
            search_pdf(project.path, "the", null_progress())  # type: ignore[attr-defined]
    assert locks_on(project.path) == before  # type: ignore[attr-defined]
    project.close()  # type: ignore[attr-defined]
