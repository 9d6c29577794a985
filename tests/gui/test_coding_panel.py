"""The coding panel, the language dialog, the look-ahead and Accept pinning what the model cited (issue 10)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core import coding
from core.catalog import load_catalog
from core.models import Language
from core.store import open_project
from core.store.repository import get_language, set_language
from gui.coding.coding_controller import CodingView
from gui.coding.coding_panel import CodingPanel
from gui.project.language_dialog import LanguageDialog, ask_if_unsure
from tests.fixtures_gui import open_on_local_server

SLOW_MS = 20_000


def test_panel_numbers_the_value_set_with_unknown_and_reports_the_confirmed_value(qtbot) -> None:
    panel = CodingPanel()
    qtbot.addWidget(panel)
    panel.show()
    feature = load_catalog().get("GB020")
    options = tuple(coding.value_choices("GB020"))
    panel.show_coding(CodingView(feature, True, "", options, "0", "absent · coded by Ana", pins=(), history=(
        "12-01 08:00  Ana coded absent",), can_undo=True))
    texts = [panel.values.item(i).text() for i in range(panel.values.count())]
    assert texts[0].startswith("0   absent") and "✔" in texts[0] and texts[1].startswith("1   present")
    assert texts[2].startswith("?   Not enough information")
    assert panel.selected_code() == "0" and panel.undo_button.isEnabled()
    assert panel.select_key("1") and not panel.select_key("2")  # Grambank's codes are the keys
    with qtbot.waitSignal(panel.valueChosen, timeout=1000) as chosen:
        qtbot.mouseClick(panel.set_button, Qt.MouseButton.LeftButton)
    assert chosen.args == ["1"]
    assert panel.select_unknown() and panel.selected_code() == "?"

    # the feature's own description is beside the value, collapsed until asked for
    assert not panel.description.isVisible()
    panel.describe_button.click()
    assert panel.description.isVisible()
    text = panel.description.toPlainText()
    assert "Summary." in text and "Procedure." in text and "definiteness" in text
    panel.describe_button.click()
    assert not panel.description.isVisible()

    # the polar-question complex is coded as its parts: nothing to choose here
    polar = load_catalog().get("116A*")
    panel.show_coding(CodingView(polar, why_not="116A* is coded as its 7 Grambank parts"))
    assert not panel.values.isEnabled() and "parts" in panel.status_label.text()


def test_language_dialog_searches_wals_grambank_and_strips_the_qualifier(qtbot, demo_project) -> None:
    dialog = LanguageDialog(Language("Ulwa", None, "unsure:title-page"))
    qtbot.addWidget(dialog)
    assert dialog.name_edit.text() == "Ulwa"
    rows = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert any("yaul1241" in r for r in rows) and any("ulwa1239" in r for r in rows)
    dialog.search_edit.setText("papu1250")
    dialog.refresh()
    rows = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert rows and all(r.endswith("papu1250") for r in rows) and any("Papuan Malay" in r for r in rows)
    dialog.search_edit.setText("Ulwa (Papua")
    dialog.refresh()
    dialog.list.setCurrentRow(0)
    assert dialog.language() == Language("Ulwa", "yaul1241", "user")
    dialog.code_edit.setText("not a code")
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()

    with open_project(demo_project) as project:
        assert ask_if_unsure(project, None) is None  # the demo's language is known: nobody is asked
        set_language(project, Language("Chakali", "chak1271", "unsure:title-page"))
        asked = ask_if_unsure(project, None)
        assert asked is not None and asked.name_edit.text() == "Chakali"
        asked.name_edit.setText("Ik")
        asked.code_edit.setText("ikkk1242")
        asked.accept()
        assert get_language(project) == Language("Ik", "ikkk1242", "user")
        assert ask_if_unsure(project, None) is None


def test_the_next_feature_shows_evidence_retrieved_ahead_without_a_retrieval(qtbot, main_window, demo_project) -> None:
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(demo_project, feature="81A")
    ids = coding.ordered_features(None, "wals")
    upcoming = ids[ids.index("81A") + 1]
    with qtbot.waitSignal(window.coding.passes.lookahead.ready, timeout=SLOW_MS,
                          check_params_cb=lambda fid: fid == upcoming):
        assert window.coding.passes.start_pass("wals")
    assert window.coding.passes.next() == upcoming
    # shown within the call: no retrieval started, the evidence list already filled
    assert window.state.feature.id == upcoming and window.state.evidence_known and not window.features.retrieving
    assert window.evidence_panel.model.rowCount() == len(window.state.hits) > 0
    window.coding.passes.stop_pass()  # cancels the look-ahead: its queue empties, its retrieval stops
    qtbot.waitUntil(lambda: not window.coding.passes.lookahead.busy, timeout=5000)


def test_accepting_the_model_value_pins_the_cited_paragraphs(qtbot, main_window, demo_project, llm_server) -> None:
    llm_server.add_rule("SOV", "SOV")
    window = main_window
    open_on_local_server(qtbot, window, demo_project, llm_server.url, wait_ms=SLOW_MS)
    with qtbot.waitSignal(window.classificationFinished, timeout=SLOW_MS):
        window.features.classify()
    cited = set(window.state.cited)
    assert cited and not window.state.pins
    assert "← model" in window.coding_panel.values.item(0).text()  # SOV, the model's value, marked in the set
    with qtbot.waitSignal(window.projects.changes.changed, timeout=5000):
        qtbot.mouseClick(window.value_panel.accept_button, Qt.MouseButton.LeftButton)
    assert window.state.pins == cited and window.coding_panel.view.current_code == "1"
    assert not window.value_panel.accept_button.isEnabled()  # the value is the model's: nothing left to accept
    assert "accepted" in window.coding_panel.status_label.text()
    assert {item.data(1) for item in window.pdf_view.overlays.highlights if item.data(0) == "pinned"} <= cited


def test_filters_of_the_pass_uncoded_and_disagreeing_with_the_databases(qtbot, main_window, demo_project) -> None:
    window, bar = main_window, main_window.pass_bar
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(demo_project, feature="81A")
    assert window.coding.passes.start_pass("paper")
    with qtbot.waitSignal(window.coding.passes.referencesNeeded, timeout=1000):  # no WALS/Grambank values read yet
        window.coding.passes.set_filter(coding.DISAGREE)
    assert window.coding.passes.pass_view().filter == coding.ALL  # offered to read them; the filter waits
    assert bar.counter_label.text() == "0 of 10 coded"  # 81A, 49A, GB107 and the seven polar-question parts
    assert window.coding.set_value("SOV")
    with qtbot.waitSignal(window.coding.passes.passChanged, timeout=2000):  # read: the waiting filter applies
        window.coding.passes.set_references({"81A": "2", "49A": "1"})  # WALS says SVO for this language
    assert bar.position_label.text() == "· feature 1 of 1 disagreeing with WALS/Grambank"
    window.coding.passes.set_filter(coding.UNCODED)  # 81A is coded: the pass goes to the first uncoded feature
    assert window.state.feature.id == "49A" and bar.position_label.text() == "· feature 1 of 9 uncoded"
    assert window.coding.passes.next_uncoded() == "GB107" and window.state.feature.id == "GB107"
    assert bar.position_label.text() == "· feature 2 of 9 uncoded" and bar.counter_label.text() == "1 of 10 coded"


def test_pin_a_printed_page_and_refuse_a_page_the_book_lacks(qtbot, main_window, demo_project) -> None:
    window, panel = main_window, main_window.coding_panel
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(demo_project, feature="81A")
    with qtbot.waitSignal(window.coding.message, timeout=2000) as said:
        window.coding.undo()
    assert said.args[0].startswith("Nothing to undo")
    qtbot.keyClicks(panel.page_edit, "3")
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000):
        qtbot.keyClick(panel.page_edit, Qt.Key.Key_Return)
    assert [(p.page_label, p.paragraph_id) for p in panel.view.pins] == [("3", None)]
    assert "p. 3 (page)" in panel.pins_label.text() and panel.page_edit.text() == ""
    with qtbot.waitSignal(window.coding.failed, timeout=2000) as failed:
        window.coding.pin_page("999")
    assert "no printed page" in failed.args[1].message
    window.last_message_box.close()
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000):
        panel.unpinRequested.emit(panel.view.pins[0])
    assert panel.view.pins == ()
