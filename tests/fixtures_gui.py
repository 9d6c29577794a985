"""Fixtures of the GUI tests: an isolated settings file and data folder, the demo project, a window.

Every window test gets its own QSettings file and XDG folders, so nothing leaks between tests
or into the developer's real settings, and the demo project is generated once per session.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO_FEATURE = "81A"
REAL_GRAMMAR = "354_Iranian_Armenian.pdf"  # the shortest of the seven (228 pages): ingests in about a second


@pytest.fixture
def gui_store(tmp_path, monkeypatch):
    """A private QSettings (INI file) and private XDG data/config folders for one test."""
    from PySide6.QtCore import QSettings

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("GRAMMARLENS_API_KEY", raising=False)
    from gui.common import settings as gui_settings

    gui_settings.forget_session_keys()  # session-only keys must not leak across tests
    store = QSettings(str(tmp_path / "grammarlens.ini"), QSettings.Format.IniFormat)
    # No embedding model by default: loading torch costs ~10 s per process on CI's two cores.
    no_model = gui_settings.AppSettings()
    no_model.retrieval = no_model.retrieval.with_(reranker=None)
    gui_settings.save_settings(no_model, store)
    return store


@pytest.fixture(scope="session")
def demo_project_template(tmp_path_factory) -> Path:
    """The demo project (generated PDF, ingested), built once; copy it before writing to it."""
    from gui.app import build_demo_project

    return build_demo_project(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def demo_project(demo_project_template, tmp_path) -> Path:
    """A writable copy of the demo project (its document still points at the generated PDF)."""
    target = tmp_path / demo_project_template.name
    shutil.copy(demo_project_template, target)
    return target


@pytest.fixture(scope="session")
def real_grammar_project_template(tmp_path_factory, shared_dir) -> Path:
    """A project holding one real grammar from ../shared/grammars, ingested once per session."""
    from core.ingest import ingest_pdf
    from core.store import create_project

    path = tmp_path_factory.mktemp("real") / "armenian.grammarlens"
    with create_project(path) as project:
        ingest_pdf(project, shared_dir / "grammars" / REAL_GRAMMAR)
    return path


@pytest.fixture
def real_grammar_project(real_grammar_project_template, tmp_path) -> Path:
    target = tmp_path / real_grammar_project_template.name
    shutil.copy(real_grammar_project_template, target)
    return target


@pytest.fixture
def main_window(qtbot, gui_store):
    """A shown main window with the feature catalog loaded; closed (cancelling its work) afterwards."""
    from gui.app import make_application
    from gui.window.main_window import MainWindow

    make_application()
    window = MainWindow(gui_store)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(lambda: window.catalog is not None, timeout=10000)
    yield window
    window.close()


def open_then_evidence(qtbot, window, project: Path, act, timeout_ms: int = 20_000) -> None:
    """Open ``project`` in ``window`` (on no feature), then ``act()`` (pick a feature, start a pass) and wait for
    the evidence that brings (``retrievalFinished``)."""
    assert window.open_project(project)
    qtbot.waitUntil(lambda: window.state.project_path is not None, timeout=timeout_ms)
    with qtbot.waitSignal(window.retrievalFinished, timeout=timeout_ms):
        act()


@pytest.fixture
def make_profile_view(qtbot):
    """Make a Profile view (gui.profile.profile_view) on its own worker runner: ``make(settings, size)``.

    ``settings`` default to no model and no reranker; with ``size`` (width, height) the view is resized
    and shown.  After the test every runner made must stop its work within 10 s, else the test errs.
    """
    from gui.common.operations import OperationRunner
    from gui.common.settings import AppSettings
    from gui.profile.profile_view import ProfileView

    runners: list[OperationRunner] = []

    def make(settings: AppSettings | None = None, size: tuple[int, int] | None = None) -> ProfileView:
        chosen = settings or AppSettings(retrieval=AppSettings().retrieval.with_(reranker=None))
        runners.append(OperationRunner())
        view = ProfileView(runners[-1], lambda: chosen)
        qtbot.addWidget(view)
        if size:
            view.resize(*size)
            view.show()
        return view

    yield make
    assert all(runner.shutdown(10_000) for runner in runners)


def open_on_local_server(qtbot, window, project: Path, url: str, *, feature: str = "81A", timeout_s: float = 10.0,
                         wait_ms: int = 30_000) -> None:
    """The window asking the tests' local OpenAI-compatible server (no reranker), ``project`` open at ``feature``
    once its evidence is shown."""
    from gui.common.settings import AppSettings

    window.apply_settings(AppSettings.local_server(url, model="gpt-4o", reranker=None, reviewer="Test Reviewer",
                                                   timeout_s=timeout_s))
    with qtbot.waitSignal(window.retrievalFinished, timeout=wait_ms):
        assert window.open_project(project, feature=feature)
