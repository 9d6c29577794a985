"""The language's WALS/Grambank values: chosen once per project, read again at open, shared by the pass and the dock;
the language named anew shows in the title; the profile dock opens big enough to use."""

from __future__ import annotations

from core import coding
from core.models import Language
from core.store import open_project
from core.store.repository import get_language, set_language
from gui.project.language_dialog import edit_language

SLOW_MS = 20_000


def _armenian(project_path) -> None:
    with open_project(project_path) as project:  # a language WALS and Grambank both hold (Eastern Armenian)
        set_language(project, Language("Eastern Armenian", "nucl1235", "user"))


def test_the_cldf_folder_is_remembered_per_project_and_read_again_when_it_opens(
        qtbot, main_window, demo_project, gui_store, shared_dir) -> None:
    _armenian(demo_project)
    window = main_window
    assert window.open_project(demo_project)
    assert window.coding.passes.start_pass("paper")
    with qtbot.waitSignal(window.coding.passes.referencesNeeded, timeout=1000):  # nothing chosen yet: offered
        window.pass_bar.filterChosen.emit(coding.DISAGREE)
    box = window.references.offer_choice(window)
    assert "CLDF" in box.text() + box.informativeText() and any("Choose" in b.text() for b in box.buttons())
    box.close()
    with qtbot.waitSignal(window.references.loaded, timeout=SLOW_MS) as read:
        window.references.load(shared_dir / "cldf")  # what choosing the folder in that box does
    assert read.args[0].get("81A") and window.coding.passes.pass_view().disagree_available
    assert window.coding.passes.pass_view().filter == coding.DISAGREE  # the filter chosen before applies now
    view = window.show_profile_view()
    assert view.exports.references and view.reference_button.text() == "Compare: cldf"
    window.close()

    from gui.window.main_window import MainWindow

    again = MainWindow(gui_store)  # a later session: the folder is remembered for this project
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.references.loaded, timeout=SLOW_MS,
                          check_params_cb=lambda refs: bool(refs)):
        assert again.open_project(demo_project)
        assert again.coding.passes.start_pass("paper")
        assert again.references.reading  # read in the background; chosen meanwhile, the filter waits for it
        with qtbot.waitSignal(again.references.message, timeout=1000) as said:
            again.coding.passes.set_filter(coding.DISAGREE)
        assert "Reading" in said.args[0]
    shown = again.coding.passes.pass_view()
    assert shown.disagree_available and shown.filter == coding.DISAGREE
    again.close()


def test_a_language_set_anew_shows_in_the_title_at_once(qtbot, main_window, demo_project) -> None:
    window = main_window
    assert window.open_project(demo_project)
    assert window.windowTitle().startswith("Veshari")
    with open_project(demo_project) as project:
        dialog = edit_language(window.projects.project, window, window.projects.set_language)
        dialog.name_edit.setText("Ik")
        dialog.code_edit.setText("ikkk1242")
        with qtbot.waitSignal(window.projects.changes.changed, timeout=1000):
            dialog.accept()
        assert window.windowTitle().startswith("Ik — ") and get_language(project).glottocode == "ikkk1242"
    assert window.act_language.isEnabled()


def test_the_profile_dock_opens_with_room_for_its_table(qtbot, main_window, demo_project) -> None:
    window = main_window  # 1280 x 800
    assert window.open_project(demo_project)
    view = window.show_profile_view()
    dock = window.profile_dock  # docked below with room for its table, or floating when the panels leave too little
    qtbot.waitUntil(lambda: dock.isFloating() or dock.height() >= 300, timeout=2000)
    table = view.table
    rows_shown = table.viewport().height() / max(table.verticalHeader().defaultSectionSize(), 1)
    assert rows_shown >= 8, rows_shown
    assert window.profile_dock.features() & window.profile_dock.DockWidgetFeature.DockWidgetFloatable


def test_a_language_without_glottocode_says_where_to_set_it(qtbot, main_window, demo_project, shared_dir) -> None:
    window = main_window  # the demo's invented language has no Glottocode: nothing to look up in WALS/Grambank
    assert window.open_project(demo_project)
    with qtbot.waitSignal(window.errorShown, timeout=SLOW_MS) as said:
        window.references.load(shared_dir / "cldf")
    assert "no Glottocode" in said.args[0] and "Project → Language" in window.last_message_box.informativeText()
    window.last_message_box.close()
    assert not window.coding.passes.pass_view().disagree_available


def test_the_language_asked_at_first_open_names_the_window_once_accepted(qtbot, main_window, demo_project) -> None:
    from gui.project.language_dialog import LanguageDialog

    with open_project(demo_project) as project:  # a series list read as the title: an unsure guess
        set_language(project, Language("Chakali", "chak1271", "unsure:title-page"))
    window = main_window
    assert window.open_project(demo_project)
    assert window.windowTitle().startswith("Chakali")
    dialog = window.findChild(LanguageDialog)
    assert dialog is not None and dialog.isVisible() and dialog.name_edit.text() == "Chakali"
    dialog.name_edit.setText("Ik")
    dialog.code_edit.setText("ikkk1242")
    with qtbot.waitSignal(window.projects.changes.changed, timeout=1000):
        dialog.accept()
    assert window.windowTitle().startswith("Ik — ")
