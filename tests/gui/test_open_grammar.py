"""Open grammar PDF… (issue 20, "One obvious way in"): a PDF opens as its own project beside it, read once.

The action, a drop and the command line all go through it: the project is made beside the PDF
(``ulwa.pdf`` → ``ulwa.grammarlens``), the same PDF reopens the same project, a namesake holding
something else gives ``ulwa-2``, a read-only folder sends the project to the data folder, the demo is
never the target.  Afterwards the language line names the language and its Glottocode, and the title,
the toolbar's page count and the status bar follow the project at once; the language question comes
only after a grammar was read whose language is unsure, never for an empty project.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from core.models import Language
from core.store import PROJECT_SUFFIX, create_project, open_project
from core.store.repository import list_documents
from gui.common import file_dialogs, projects
from gui.project import open_grammar
from gui.project.language_dialog import LanguageDialog
from gui.project.language_line import line_text
from tests.fixtures_ingest import write_sample_book

SLOW_MS = 30_000
ULWA_TITLE = "A grammar of Ulwa (Papua New Guinea)"  # a sure guess: Ulwa, yaul1241


def _book(path: Path, title: str | None = None) -> Path:
    """The generated nine-page grammar at ``path`` (its metadata title replaced when ``title`` is given)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if title is None:
        return write_sample_book(path).path
    draft = write_sample_book(path.with_name(f"draft-{path.name}")).path
    with pymupdf.open(draft) as doc:
        doc.set_metadata({**doc.metadata, "title": title})
        doc.save(path)
    draft.unlink()
    return path


def _pages(pdf: Path) -> int:
    with pymupdf.open(pdf) as doc:
        return doc.page_count


def _answer_dialogs(monkeypatch, path: Path) -> list[tuple[str, str]]:
    """Answer every file chooser with ``path``; returns (title, start folder) of each chooser built."""
    asked: list[tuple[str, str]] = []

    def run(dialog) -> Path:
        asked.append((dialog.windowTitle(), dialog.directory().absolutePath()))
        dialog.deleteLater()
        return path

    monkeypatch.setattr(file_dialogs, "_run", run)
    return asked


def _language_dialogs(window) -> list[LanguageDialog]:
    return [d for d in window.findChildren(LanguageDialog) if d.isVisible()]


def _documents(project_path: Path) -> list[str]:
    with open_project(project_path, readonly=True, backup=False) as project:
        return [d.sha256 for d in list_documents(project)]


@pytest.fixture
def demo_window(main_window, demo_project, monkeypatch, qtbot):
    """The window with the demo project open (what a newcomer sees first)."""
    monkeypatch.setattr(projects, "demo_project_path", lambda: demo_project)
    with qtbot.waitSignal(main_window.projectOpened, timeout=5000):
        assert main_window.open_project(demo_project)
    return main_window


def test_open_grammar_pdf_makes_its_project_beside_it_and_names_the_language(
        qtbot, demo_window, demo_project, tmp_path, monkeypatch) -> None:
    window = demo_window
    demo_pages = window.pdf_toolbar.page_total.text()
    demo_documents = _documents(demo_project)
    pdf = _book(tmp_path / "books" / "ulwa.pdf", ULWA_TITLE)
    asked = _answer_dialogs(monkeypatch, pdf)
    assert window.act_open_pdf in window.menuBar().actions()[0].menu().actions()[:1]  # the Project menu's first item
    assert window.act_open_pdf.shortcut().toString() == "Ctrl+Shift+O"
    with qtbot.waitSignals([window.projectOpened, window.ingestFinished], timeout=SLOW_MS):
        window.act_open_pdf.trigger()
    assert asked == [("Open a grammar PDF", str(projects.projects_dir()))]  # the demo's folder is not the linguist's
    made = pdf.with_suffix(PROJECT_SUFFIX)
    assert window.state.project_path == made and made.is_file()
    line = window.language_line
    assert line.isVisible() and "Language: Ulwa (yaul1241)" in line.text() and "change…" in line.text()
    assert window.windowTitle() == f"Ulwa — {made.name} — GrammarLens"
    assert window.pdf_toolbar.page_total.text() == f" ({_pages(pdf)} pp.) " != demo_pages
    assert window.pdf_toolbar.page_edit.text() == "i"  # the book's own first label, not the demo's page
    assert made.name in window.statusBar().currentMessage()
    assert _language_dialogs(window) == []  # a sure guess: nobody is asked
    assert _documents(demo_project) == demo_documents  # the demo was never the target
    qtbot.wait(50)
    window.grab().save("/tmp/grammarlens-open-grammar-pdf.png")

    # the next chooser starts in the folder of the PDF just opened
    window.act_open_pdf.trigger()
    assert asked[-1] == ("Open a grammar PDF", str(pdf.parent))
    assert window.state.project_path == made and not pdf.with_name(f"ulwa-2{PROJECT_SUFFIX}").exists()


def test_the_same_pdf_opens_the_same_project_and_a_namesake_gets_its_own(qtbot, main_window, tmp_path) -> None:
    window = main_window
    pdf = _book(tmp_path / "ulwa.pdf", ULWA_TITLE)
    with qtbot.waitSignals([window.projectOpened, window.ingestFinished], timeout=SLOW_MS):
        window.open_pdf(pdf)
    made = tmp_path / f"ulwa{PROJECT_SUFFIX}"
    window.projects.close()
    assert window.windowTitle() == "GrammarLens" and window.pdf_toolbar.page_total.text() == ""
    assert not window.language_line.isVisible()
    with qtbot.waitSignal(window.projectOpened, timeout=5000) as opened:
        assert window.open_pdf(pdf) is True  # opened, not read again
    assert opened.args == [str(made)] and len(_documents(made)) == 1
    assert sorted(p.name for p in tmp_path.glob(f"*{PROJECT_SUFFIX}")) == [made.name]

    other = tmp_path / "other"  # another book called ulwa.pdf, whose folder has a ulwa project of something else
    other_pdf = _book(other / "ulwa.pdf")
    create_project(other / f"ulwa{PROJECT_SUFFIX}").close()
    with qtbot.waitSignals([window.projectOpened, window.ingestFinished], timeout=SLOW_MS):
        window.open_pdf(other_pdf)
    second = other / f"ulwa-2{PROJECT_SUFFIX}"
    assert window.state.project_path == second and _documents(other / f"ulwa{PROJECT_SUFFIX}") == []
    assert open_grammar.project_for_grammar(other_pdf, open_grammar.digest_of(other_pdf)) == \
        open_grammar.GrammarProject(second, True, True)  # and next time it opens ulwa-2 again


def test_a_pdf_in_a_read_only_folder_gets_its_project_in_the_data_folder(qtbot, main_window, tmp_path) -> None:
    window = main_window
    shelf = tmp_path / "shelf"
    pdf = _book(shelf / "ulwa.pdf", ULWA_TITLE)
    shelf.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)  # r-x r-x ---
    try:
        assert not open_grammar.folder_writable(shelf)
        with qtbot.waitSignals([window.projectOpened, window.ingestFinished], timeout=SLOW_MS):
            window.open_pdf(pdf)
        made = projects.projects_dir() / f"ulwa{PROJECT_SUFFIX}"
        assert window.state.project_path == made and sorted(p.name for p in shelf.iterdir()) == ["ulwa.pdf"]
        assert "cannot be written" in window.statusBar().currentMessage()
        assert "Ulwa (yaul1241)" in window.language_line.text()
        window.projects.close()
        with qtbot.waitSignal(window.projectOpened, timeout=5000):
            assert window.open_pdf(pdf) is True  # found there again
        assert window.state.project_path == made
    finally:
        shelf.chmod(stat.S_IRWXU)


def test_an_empty_new_project_asks_nothing_until_its_grammar_is_read(qtbot, demo_window, tmp_path,
                                                                      monkeypatch) -> None:
    window = demo_window
    assert window.pdf_toolbar.page_total.text()  # the demo's page count...
    start = _answer_dialogs(monkeypatch, tmp_path / "fresh")
    with qtbot.waitSignal(window.projectOpened, timeout=5000):
        window.act_new.trigger()
    assert start == [("New project", str(projects.projects_dir()))]
    qtbot.wait(50)
    assert _language_dialogs(window) == []  # no grammar: nothing was guessed, nothing to ask
    assert window.pdf_toolbar.page_total.text() == "" and window.pdf_toolbar.page_edit.text() == ""  # ...is gone
    assert window.windowTitle() == f"fresh — fresh{PROJECT_SUFFIX} — GrammarLens"
    assert "none yet" in window.language_line.text()
    assert "no grammar yet" in window.statusBar().currentMessage()

    # the grammar opened next is read into this empty project; its unsure language is asked once
    teshi = _book(tmp_path / "teshi.pdf")  # "A grammar of Teshi": an invented language, no Glottocode
    with qtbot.waitSignal(window.ingestFinished, timeout=SLOW_MS):
        window.open_pdf(teshi)
    assert window.state.project_path == tmp_path / f"fresh{PROJECT_SUFFIX}" and len(window.state.documents) == 1
    assert window.windowTitle().startswith("Teshi — ") and window.pdf_toolbar.page_total.text()
    assert "Teshi (no Glottocode), a guess" in window.language_line.text()
    asked = _language_dialogs(window)
    assert len(asked) == 1 and asked[0].name_edit.text() == "Teshi"
    asked[0].name_edit.setText("Ulwa")
    asked[0].code_edit.setText("yaul1241")
    with qtbot.waitSignal(window.projects.changes.changed, timeout=1000):
        asked[0].accept()
    assert "Language: Ulwa (yaul1241)" in window.language_line.text() and window.windowTitle().startswith("Ulwa — ")

    # the line's link opens the same dialog (once, however often it is clicked)
    window.language_line.linkActivated.emit("language")
    window.language_line.linkActivated.emit("language")
    shown = _language_dialogs(window)
    assert len(shown) == 1 and shown[0].name_edit.text() == "Ulwa" and shown[0].code_edit.text() == "yaul1241"
    qtbot.wait(50)
    shown[0].grab().save("/tmp/grammarlens-language-dialog.png")
    shown[0].reject()


def test_a_pdf_dropped_on_the_demo_opens_as_its_own_project(qtbot, demo_window, demo_project, tmp_path) -> None:
    window = demo_window
    before = _documents(demo_project)
    pdf = _book(tmp_path / "dropped" / "ulwa.pdf", ULWA_TITLE)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(pdf))])
    drop = QDropEvent(QPointF(400, 300), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignals([window.projectOpened, window.ingestFinished], timeout=SLOW_MS):
        window.dropEvent(drop)
    assert window.state.project_path == pdf.with_suffix(PROJECT_SUFFIX)
    assert _documents(demo_project) == before  # untouched
    assert "Ulwa (yaul1241)" in window.language_line.text()


def test_add_grammar_reads_a_second_volume_into_the_open_project(qtbot, main_window, tmp_path, monkeypatch) -> None:
    window = main_window
    first = _book(tmp_path / "vol1" / "ulwa.pdf", ULWA_TITLE)
    with qtbot.waitSignals([window.projectOpened, window.ingestFinished], timeout=SLOW_MS):
        window.open_pdf(first)
    second = _book(tmp_path / "vol2" / "ulwa-2.pdf", "A grammar of Ulwa, volume 2")
    asked = _answer_dialogs(monkeypatch, second)
    with qtbot.waitSignal(window.ingestFinished, timeout=SLOW_MS) as finished:
        window.act_add.trigger()
    assert asked == [("Add a grammar PDF", str(first.parent))]  # beside the project's own grammar
    assert finished.args == [True] and len(window.state.documents) == 2
    assert window.state.project_path == first.with_suffix(PROJECT_SUFFIX)
    assert window.pdf_toolbar.document_combo.isVisibleTo(window)  # two grammars: the chooser shows
    # opening a PDF the project holds already shows it there
    assert window.open_pdf(second) is True and window.state.document.file_name == "ulwa-2.pdf"


def test_a_project_with_an_unsure_language_asks_once_when_opened(qtbot, main_window, demo_project) -> None:
    from core.store.repository import set_language

    with open_project(demo_project) as project:
        set_language(project, Language("Chakali", "chak1271", "unsure:title-page"))
    window = main_window
    with qtbot.waitSignal(window.projectOpened, timeout=5000):
        assert window.open_project(demo_project)
    assert len(_language_dialogs(window)) == 1  # however many parts of the window listen to the opening
    assert "Chakali (chak1271), a guess — " in window.language_line.text()


def test_where_a_pdf_project_goes_without_a_window(tmp_path) -> None:
    pdf = _book(tmp_path / "ulwa.pdf")
    digest = open_grammar.digest_of(pdf)
    assert open_grammar.project_for_grammar(pdf, digest) == open_grammar.GrammarProject(
        tmp_path / f"ulwa{PROJECT_SUFFIX}", False, True)
    (tmp_path / f"ulwa{PROJECT_SUFFIX}").write_text("not a project", encoding="utf-8")  # not ours: left alone
    Path(f"{tmp_path / 'ulwa-2'}{PROJECT_SUFFIX}-wal").write_bytes(b"")  # a stray log also takes the name
    found = open_grammar.project_for_grammar(pdf, digest)
    assert found.path.name == f"ulwa-3{PROJECT_SUFFIX}" and not found.holds_pdf and found.note == ""
    assert open_grammar.digest_of(tmp_path / "missing.pdf") is None


def test_the_language_line_says_what_is_known() -> None:
    assert line_text(Language("Ulwa", "yaul1241", "pdf-metadata"), True) == \
        'Language: Ulwa (yaul1241) — <a href="language">change…</a>'
    assert "Veshari (no Glottocode) — " in line_text(Language("Veshari", None, "user"), True)
    assert "Teshi (no Glottocode), a guess — <a href=\"language\">check…</a>" in \
        line_text(Language("Teshi", None, "unsure:pdf-metadata"), True)
    assert "none yet (no grammar read)" in line_text(None, False)
    assert "not found in the grammar's title" in line_text(None, True)
    assert "&lt;b&gt;" in line_text(Language("<b>", None, "user"), True)
