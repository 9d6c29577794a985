"""Exporting from the profile view: the chosen folder may hold an earlier export, warnings are shown (issue 19)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from core.coding.decisions import code
from core.output_paths import EXPORT_FILES
from core.store import create_project
from gui.profile.profile_view import ProfileView

WAIT_MS = 20_000


@pytest.fixture
def view(make_profile_view) -> ProfileView:
    return make_profile_view()


@pytest.fixture
def bare_project(tmp_path: Path) -> Path:
    """A coded value, but no grammar and no language: every export has something to warn about."""
    path = tmp_path / "bare.grammarlens"
    with create_project(path) as project:
        code(project, "81A", "SOV", reviewer="Ana")
    return path


def _export(qtbot, view: ProfileView, fmt: str, folder: Path, overwrite: bool = False) -> str:
    view.summary_label.setText("")
    assert view.exports.export_to(fmt, folder, overwrite=overwrite) is not None
    qtbot.waitUntil(lambda: view.summary_label.text().startswith("Export"), timeout=WAIT_MS)
    return view.summary_label.text()


def test_an_export_into_a_chosen_folder_shows_its_warnings_and_may_replace_an_earlier_one(
        qtbot, view, bare_project, tmp_path) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(bare_project)
    folder = tmp_path / "cldf"
    said = _export(qtbot, view, "cldf", folder)
    assert said.startswith(f"Exported {folder / 'StructureDataset-metadata.json'}. Warning: The project has no "
                           "language set") and said.endswith("(and 1 more)")
    assert (folder / "values.csv").exists()
    (folder / "values.csv").write_text("stale\n", encoding="utf-8")
    said = _export(qtbot, view, "cldf", folder)  # nobody said to replace it: refused, the file kept
    assert said.startswith("Export failed:") and (folder / "values.csv").read_text(encoding="utf-8") == "stale\n"
    said = _export(qtbot, view, "cldf", folder, overwrite=True)  # "Replace it" was answered
    assert said.startswith("Exported ") and (folder / "values.csv").read_text(encoding="utf-8") != "stale\n"


def test_an_export_onto_the_project_or_into_a_missing_folder_is_refused(qtbot, view, bare_project, tmp_path) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(bare_project)
    said = _export(qtbot, view, "csv", bare_project)
    assert said.startswith("Export failed:") and "project" in said
    said = _export(qtbot, view, "json", tmp_path / "missing" / "json")
    assert said.startswith("Export failed:") and "does not exist" in said
    assert not (tmp_path / "missing").exists()


# ---------------------------------------------------------------------- issue 29: a folder of its own
def _into(qtbot, view: ProfileView, fmt: str, parent: Path):
    view.summary_label.setText("")
    started = view.exports.export_into(fmt, parent)
    if started is not None and not isinstance(started, QMessageBox):
        qtbot.waitUntil(lambda: view.summary_label.text().startswith("Export"), timeout=WAIT_MS)
    return started


def _answer(qtbot, view: ProfileView, box: QMessageBox, choice: str) -> None:
    button = next(b for b in box.buttons() if b.property("choice") == choice)
    button.click()
    qtbot.waitUntil(lambda: view.summary_label.text().startswith("Export"), timeout=WAIT_MS)


def test_an_export_goes_into_a_new_folder_named_after_the_project(qtbot, view, bare_project, tmp_path) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(bare_project)
    chosen = tmp_path / "exports"
    chosen.mkdir()
    (chosen / "values.csv").write_text("someone else's table\n", encoding="utf-8")  # never touched
    _into(qtbot, view, "cldf", chosen)
    made = chosen / "bare-cldf"
    assert sorted(p.name for p in chosen.iterdir()) == ["bare-cldf", "values.csv"]  # nothing loose beside it
    assert (chosen / "values.csv").read_text(encoding="utf-8") == "someone else's table\n"
    written = {p.name for p in made.iterdir()}
    assert "values.csv" in written and written <= set(EXPORT_FILES["cldf"])  # no sources.bib: no grammar
    box = view.exports.export_box
    assert box is not None and box.isVisible() and "bare-cldf" in box.text()
    assert str(made) in box.informativeText() and "values.csv" in box.informativeText()
    assert "Warning: The project has no language set" in box.informativeText()
    assert any(b.text() == "Open the folder" for b in box.buttons())
    box.resize(640, 420)
    qtbot.wait(50)
    assert box.grab().save("/tmp/grammarlens-export-result-folder.png")
    assert view.exports.export_parent == chosen  # the chooser opens here next time
    box.close()

    # the same export again: the folder is there, so the person is asked; nothing is replaced unasked
    question = _into(qtbot, view, "cldf", chosen)
    assert isinstance(question, QMessageBox) and "bare-cldf" in question.text()
    (made / "values.csv").write_text("stale\n", encoding="utf-8")
    _answer(qtbot, view, question, "keep both")
    assert (chosen / "bare-cldf-2" / "values.csv").exists() and (made / "values.csv").read_text() == "stale\n"
    question = _into(qtbot, view, "cldf", chosen)
    _answer(qtbot, view, question, "replace")
    assert (made / "values.csv").read_text(encoding="utf-8") != "stale\n"
    assert sorted(p.name for p in chosen.iterdir()) == ["bare-cldf", "bare-cldf-2", "values.csv"]


def test_a_folder_of_that_name_holding_other_files_is_never_replaced(qtbot, view, bare_project, tmp_path) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(bare_project)
    mine = tmp_path / "bare-csv"
    mine.mkdir()
    (mine / "notes.txt").write_text("fieldwork\n", encoding="utf-8")
    question = _into(qtbot, view, "csv", tmp_path)
    assert isinstance(question, QMessageBox)
    assert [b.property("choice") for b in question.buttons() if b.property("choice")] == ["keep both"]
    _answer(qtbot, view, question, "keep both")
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    assert sorted(p.name for p in (tmp_path / "bare-csv-2").iterdir()) == ["profile.csv"]


def test_never_into_the_top_of_the_disk_and_the_chooser_never_starts_beside_the_pdf(qtbot, view, bare_project,
                                                                                     tmp_path, monkeypatch) -> None:
    from gui.profile.export_folder import start_folder

    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(bare_project)
    before = sorted(p.name for p in Path("/").iterdir())
    assert _into(qtbot, view, "json", Path("/")) is None
    assert view.summary_label.text().startswith("Export failed: GrammarLens does not export into /")
    assert sorted(p.name for p in Path("/").iterdir()) == before
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(tmp_path / "home" / "Documents"))
    (tmp_path / "home" / "Documents").mkdir(parents=True)
    first = start_folder(None)
    assert first in (tmp_path / "home" / "Documents", tmp_path / "home") and first != bare_project.parent
    assert start_folder(tmp_path) == tmp_path and start_folder(tmp_path / "gone") == first
