"""Screenshots of the app for review and the README: ``python -m bench.screenshots [OUT_DIR]``.

Runs offscreen (no display needed) and grabs the widgets: the main window with a prediction
and highlighted evidence on a real grammar (classified by the local OpenAI-compatible test
server), the evidence list's Section column for GB020, the demo project offline, a coding pass,
the language dialog, the profile dock, the settings dialog, and the message for a broken PDF.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GRAMMAR = REPO.parent / "shared" / "grammars" / "354_Iranian_Armenian.pdf"


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    out = Path(argv[0]) if argv else REPO / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QPoint, QSettings
    from PySide6.QtGui import QPainter

    from bench.gui import _wait
    from bench.stub_server import stub_server_class
    from core.ingest import ingest_pdf
    from core.store import create_project
    from gui.app import build_demo_project, make_application
    from gui.common.settings import AppSettings, save_settings
    from gui.window.main_window import MainWindow

    app = make_application()
    server = stub_server_class()().start()
    server.add_rule("SOV", "SOV", reasoning=(
        "The grammar states that the basic constituent order of Iranian Armenian is SOV: the verb "
        "follows the object in neutral transitive clauses, and other orders are pragmatically marked."))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        store = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
        project_path = Path(tmp) / "Iranian Armenian.grammarlens"
        with create_project(project_path) as project:
            ingest_pdf(project, GRAMMAR)

        # the demo, offline
        save_settings(AppSettings(retrieval=AppSettings().retrieval.with_(reranker=None)), store)
        window = MainWindow(store)
        window.resize(1280, 800)  # the default size, where the evidence must be readable
        window.show()
        _wait(app, lambda: window.catalog is not None, 30)
        window.open_project(build_demo_project(Path(tmp) / "demo"), feature="81A")
        _wait(app, lambda: bool(window.state.hits), 60)  # the best paragraph is shown without a click
        _wait(app, lambda: not window.pdf_view.renderer.rendering, 10)
        window.grab().save(str(out / "demo_offline.png"))

        # a real grammar, classified by the local server
        window.apply_settings(AppSettings.local_server(server.url, reviewer="A. Linguist"))
        window.open_project(project_path, feature="81A")
        _wait(app, lambda: bool(window.state.hits), 60)
        window.features.classify()
        _wait(app, lambda: not window.features.classifying, 60)
        _wait(app, lambda: not window.pdf_view.renderer.rendering, 10)
        window.grab().save(str(out / "main_window.png"))
        evidence_sections_shot(app, window, project_path, out)
        coding_pass_shots(app, window, out)
        profile_shot(app, window, out)

        dialog = window.open_settings()
        _wait(app, lambda: dialog.isVisible(), 5)
        dialog.adjustSize()
        dialog.grab().save(str(out / "settings_dialog.png"))
        dialog.reject()

        broken = Path(tmp) / "damaged grammar.pdf"
        broken.write_bytes(b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF garbage")
        window.ingest_pdf(broken)
        _wait(app, lambda: window.last_message_box is not None and window.last_message_box.isVisible(), 30)
        box = window.last_message_box
        assert box is not None
        box.adjustSize()
        shot = window.grab()
        painter = QPainter(shot)
        painter.fillRect(shot.rect(), QColorDim())
        boxshot = box.grab()
        painter.drawPixmap(QPoint((shot.width() - boxshot.width()) // 2, (shot.height() - boxshot.height()) // 3),
                           boxshot)
        painter.end()
        shot.save(str(out / "broken_pdf_message.png"))
        box.close()
        window.close()
    server.stop()
    for name in ("main_window.png", "evidence_sections_gb020.png", "demo_offline.png", "coding_pass.png",
                 "language_dialog.png", "profile_dock.png", "settings_dialog.png", "broken_pdf_message.png"):
        print(out / name)
    return 0


def evidence_sections_shot(app, window, project_path: Path, out: Path) -> None:
    """GB020 (articles) on a grammar whose references name "the definite article": the evidence list's
    Section column shows each paragraph's place in the book, and no reference leads (issue 28)."""
    from bench.gui import _wait

    window.open_project(project_path, feature="GB020")
    _wait(app, lambda: bool(window.state.hits) and not any(h.provisional for h in window.state.hits), 120)
    _wait(app, lambda: not window.pdf_view.rendering, 10)
    window.evidence_panel.grab().save(str(out / "evidence_sections_gb020.png"))


def coding_pass_shots(app, window, out: Path) -> None:
    """A Grambank coding pass driven by its keys (three values set, a pin, the description open), and
    the language dialog as an unsure title guess opens it."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from bench.gui import _wait
    from core.models import Language
    from gui.project.language_dialog import LanguageDialog

    bar = window.pass_bar
    window.coding.passes.start_pass("grambank")
    bar.setFocus()
    for key in ("1", "0", "?"):  # present, absent, not enough information: each stored, then the next feature
        _wait(app, lambda: window.state.evidence_known, 60)
        QTest.keyClicks(bar, key)
        QTest.keyClick(bar, Qt.Key.Key_Return)
    _wait(app, lambda: window.state.evidence_known, 60)
    QTest.keyClicks(bar, "1")  # selected, not stored yet
    window.coding.toggle_pin(window.state.ordered_hits()[window.state.best_row()].paragraph)
    window.coding_panel.describe_button.setChecked(True)
    _wait(app, lambda: not window.pdf_view.renderer.rendering and not window.coding.passes.lookahead.busy, 30)
    window.grab().save(str(out / "coding_pass.png"))
    window.coding_panel.describe_button.setChecked(False)
    window.coding.passes.stop_pass()

    dialog = LanguageDialog(Language("Ulwa", None, "unsure:title-page"), window)
    dialog.show()
    _wait(app, lambda: dialog.isVisible(), 5)
    dialog.grab().save(str(out / "language_dialog.png"))
    dialog.close()


def profile_shot(app, window, out: Path) -> None:
    """The profile dock as it first opens at 1280 x 800, compared with the shared WALS/Grambank CLDF data."""
    from bench.gui import _wait

    view = window.show_profile_view()
    compared: list[bool] = []
    view.referencesLoaded.connect(lambda: compared.append(True))
    window.references.load(REPO.parent / "shared" / "cldf")
    _wait(app, lambda: bool(compared) and not window.runner.visible(), 60)
    _wait(app, lambda: not window.pdf_view.renderer.rendering, 10)
    dock = window.profile_dock
    (dock.grab() if dock.isFloating() else window.grab()).save(str(out / "profile_dock.png"))
    dock.close()


def QColorDim():
    from PySide6.QtGui import QColor

    return QColor(0, 0, 0, 70)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
