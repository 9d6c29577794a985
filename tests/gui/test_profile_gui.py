"""The profile view in the main window, offscreen: a batch started, cancelled and resumed on a real
grammar against the local LLM server, agreement with ../shared/cldf, filters, jump to evidence, and
the screenshot screenshots/profile_view.png."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from core.store import open_project
from gui.common.settings import AppSettings
from tests.fixtures_profile import PROFILE_FEATURES

pytestmark = [
    pytest.mark.gui,
    pytest.mark.slow,
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise)\(\)"),
]

SCREENSHOT = Path(__file__).resolve().parents[2] / "screenshots" / "profile_view.png"
WAIT_MS = 30000


def _stored(path: Path) -> Counter:
    with open_project(path, readonly=True) as project:
        return Counter(r[0] for r in project.conn.execute("SELECT feature_id FROM classifications"))


def test_batch_cancel_resume_agreement_and_screenshot(qtbot, main_window, real_grammar_project, canned_answers,
                                                      shared_dir) -> None:
    window = main_window
    window.resize(1500, 980)
    window.apply_settings(AppSettings.local_server(canned_answers.url, reviewer="Test Reviewer", timeout_s=10.0))
    assert window.open_project(real_grammar_project)
    view = window.show_profile_view()
    window.profile_dock.setFloating(False)  # docked below, as a person does by double-clicking its title
    window.resizeDocks([window.profile_dock], [470], Qt.Orientation.Vertical)
    assert window.profile_dock.isVisible() and view.project_path == real_grammar_project
    with qtbot.waitSignal(view.estimateShown, timeout=WAIT_MS):
        view.set_feature_set(",".join(PROFILE_FEATURES))
    assert "12 feature(s)" in view.estimate_label.text() and "free (local server)" in view.estimate_label.text()

    # start, cancel after a few features, resume
    canned_answers.enqueue(*[{"delay": 0.5}] * 12)
    with qtbot.waitSignal(view.batchFinished, timeout=WAIT_MS) as blocker:
        batch = view.start_batch()
        assert batch is not None and view.running
        # press Cancel once a feature is stored (at most four more requests are in flight then)
        def cancel_after_one(done: int, total: int, message: str) -> None:
            if done >= 1:
                view.cancel_batch()

        view.batchProgress.connect(cancel_after_one)
    view.batchProgress.disconnect(cancel_after_one)
    assert blocker.args == ["cancelled"] and view.run_button.text() == "Resume batch"
    first = _stored(real_grammar_project)
    assert 1 <= sum(first.values()) <= 8 and max(first.values()) == 1
    assert len(canned_answers.chat_requests) == sum(first.values())  # requests in flight finished and were kept
    assert "Resume" in view.estimate_label.text() or "Cancelled" in view.estimate_label.text()
    with qtbot.waitSignal(view.batchFinished, timeout=WAIT_MS) as blocker:
        view.start_batch()
    assert blocker.args == ["done"], view.last_error
    assert set(view.last_result.skipped) == set(first) and len(view.last_result.ran) == 12 - len(first)
    assert _stored(real_grammar_project) == Counter(PROFILE_FEATURES)
    assert len(canned_answers.chat_requests) == 12  # nothing asked twice
    assert view.model.rowCount() == 18 and view.run_button.text() == "Run batch"

    # agreement with the databases' values for Eastern Armenian (nucl1235)
    with qtbot.waitSignal(view.referencesLoaded, timeout=WAIT_MS):
        view.exports.set_reference_folder(shared_dir / "cldf")
    assert "agreement with the databases: 9/10" in view.summary_label.text()
    row = next(r for r in range(view.model.rowCount()) if view.model.entry(r).feature_id == "81A")
    assert view.model.index(row, 5).data() == "WALS: No dominant order"
    assert view.model.index(row, 6).data() == "disagree"

    # filter and sort
    view.filter_edit.setText("polar")
    assert 1 <= view.proxy.rowCount() <= 7
    view.filter_edit.clear()
    view.status_combo.setCurrentIndex(view.status_combo.findData("predicted"))
    assert view.proxy.rowCount() == 18
    view.status_combo.setCurrentIndex(0)
    order = [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())]
    assert order[:3] == ["49A", "81A", "GB020"] and order.index("GB030") < order.index("GB107") < order.index("GB257")

    # jump to evidence: a double-click opens the feature (the polar complex for GB263) in the main window
    proxy_row = next(r for r in range(view.proxy.rowCount()) if view.proxy.index(r, 0).data() == "GB263")
    view.table.doubleClicked.emit(view.proxy.index(proxy_row, 0))
    state = window.state
    assert state.feature is not None and state.feature.id == "116A*"
    assert state.classification is not None and state.classification.feature_id == "116A*"
    first_cited = next(h.paragraph for h in window.evidence_panel.model.hits if h.paragraph.id in state.cited)
    cited_page = min(r.pdf_page for r in first_cited.rects)
    assert abs(window.pdf_view.current_page - cited_page) <= 1  # the PDF went to the cited paragraph
    view.table.selectRow(proxy_row)
    qtbot.wait(300)
    SCREENSHOT.parent.mkdir(exist_ok=True)
    assert window.grab().save(str(SCREENSHOT))


def test_evidence_only_batch_and_bibtex_dialog(qtbot, main_window, real_grammar_project, llm_server) -> None:
    window = main_window
    window.apply_settings(AppSettings(retrieval=AppSettings().retrieval.with_(reranker=None)))
    assert window.open_project(real_grammar_project)
    view = window.show_profile_view()
    view.set_feature_set("81A,GB107")
    with qtbot.waitSignal(view.estimateShown, timeout=WAIT_MS):
        view.mode_combo.setCurrentIndex(view.mode_combo.findData("retrieval"))
    assert "no model is asked" in view.estimate_label.text()
    with qtbot.waitSignal(view.batchFinished, timeout=WAIT_MS) as blocker:
        view.start_batch()
    assert blocker.args == ["done"] and llm_server.chat_requests == []
    statuses = {view.model.entry(r).feature_id: view.model.entry(r).status for r in range(view.model.rowCount())}
    assert statuses == {"81A": "evidence only", "GB107": "evidence only"}
    from PySide6.QtWidgets import QDialogButtonBox

    dialog = view.exports.edit_bibtex()
    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        pass
    assert dialog.editor.toPlainText().startswith("@book{dolatian2023")
    dialog.editor.setPlainText("@book{broken, title = {x}")
    save = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    with qtbot.waitSignal(dialog.saveFailed, timeout=WAIT_MS):
        save.click()
    assert dialog.error.text() and dialog.isVisible()
    dialog.editor.setPlainText("@book{vaux2023, title = {A grammar of Iranian Armenian}, year = {2023}}")
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save.click()
    assert not dialog.isVisible()
    from gui.profile.profile_backend import get_bibtex

    assert get_bibtex(real_grammar_project).startswith("@book{vaux2023")
