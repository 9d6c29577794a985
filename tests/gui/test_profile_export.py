"""Exporting from the profile view: the chosen folder may hold an earlier export, warnings are shown (issue 19)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.coding.decisions import code
from core.store import create_project
from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.profile.profile_view import ProfileView

WAIT_MS = 20_000


@pytest.fixture
def view(qtbot):
    runner = OperationRunner()
    settings = AppSettings(retrieval=AppSettings().retrieval.with_(reranker=None))
    view = ProfileView(runner, lambda: settings)
    qtbot.addWidget(view)
    yield view
    assert runner.shutdown(10_000)


@pytest.fixture
def bare_project(tmp_path: Path) -> Path:
    """A coded value, but no grammar and no language: every export has something to warn about."""
    path = tmp_path / "bare.grammarlens"
    with create_project(path) as project:
        code(project, "81A", "SOV", reviewer="Ana")
    return path


def _export(qtbot, view: ProfileView, fmt: str, folder: Path) -> str:
    view.summary_label.setText("")
    assert view.export_to(fmt, folder) is not None
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
    said = _export(qtbot, view, "cldf", folder)  # the folder dialog was the consent: replaced, not refused
    assert said.startswith("Exported ") and (folder / "values.csv").read_text(encoding="utf-8") != "stale\n"


def test_an_export_onto_the_project_or_into_a_missing_folder_is_refused(qtbot, view, bare_project, tmp_path) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(bare_project)
    said = _export(qtbot, view, "csv", bare_project)
    assert said.startswith("Export failed:") and "project" in said
    said = _export(qtbot, view, "json", tmp_path / "missing" / "json")
    assert said.startswith("Export failed:") and "does not exist" in said
    assert not (tmp_path / "missing").exists()
