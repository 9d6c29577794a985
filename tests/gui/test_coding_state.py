"""The coding pass's plain data (no window): what it says, what it remembers per project, where it continues."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from core import coding
from core.catalog import load_catalog
from core.coding.coding_pass import ActUndone
from core.coding.feature_sets import FOUR
from gui.coding.coding_session import PassSession
from gui.coding.coding_state import (
    CodingView,
    PassAct,
    PassActs,
    PassMemory,
    choose_first_text,
    not_a_value_text,
    refused_text,
    undone_text,
)


def _view(fid: str) -> CodingView:
    return CodingView(load_catalog().get(fid), True, options=tuple(coding.value_choices(fid)))


def test_a_key_that_is_no_value_names_the_feature_and_its_keys() -> None:
    assert not_a_value_text("7", _view("GB020")) == "7 is not a value of GB020 (0, 1, ?)."
    assert not_a_value_text("0", _view("GB025")) == "0 is not a value of GB025 (1, 2, 3, ?)."
    assert not_a_value_text("9", _view("81A")) == "9 is not a value of 81A (1, 2, 3, 4, 5, 6, 7, ?)."
    assert not_a_value_text("x", _view("GB020")).startswith("“x” is not a key of the coding pass")
    assert choose_first_text(_view("GB020")) == "Nothing stored: type a value of GB020 first (0, 1, ?), then Enter."
    assert not_a_value_text("1", CodingView(None, why_not="Pick a feature")) == "Pick a feature"


def test_undo_and_refusal_say_which_feature_and_what_counts(llm_project) -> None:
    project = llm_project.project
    act = coding.code(project, "GB107", "1", reviewer="Ana")
    words = undone_text(PassAct("GB107", act.action, (act,)), ActUndone(True, restored={"GB107": None}))
    assert words == f"Undid GB107 = {act.label} (1): back to not coded."
    theirs = coding.code(project, "GB107", "?", reviewer="Bo")
    said = refused_text(PassAct("GB107", act.action, (act,)), ActUndone(False, changed={"GB107": theirs}))
    assert said.startswith("GB107 not undone: Bo changed it since (? (not enough information), ")
    assert said.endswith("). Ctrl+Z again goes further back.")
    local = datetime.fromisoformat(theirs.created_at).astimezone().strftime("%H:%M")  # stored in UTC, said locally
    assert f", {local})." in said
    pin = coding.pin(project, "GB107", page_labels=["3"], reviewer="Ana")
    words = undone_text(PassAct("GB107", "pin", (pin,)), ActUndone(True, restored={"GB107": theirs}))
    assert words == "Undid GB107's pin: back to ? (not enough information)."


def test_acts_stack_newest_last_and_skip_empty_acts() -> None:
    acts = PassActs()
    acts.push(PassAct("GB020", "note", ()))
    assert len(acts) == 0 and acts.pop() is None
    acts.push(PassAct("GB020", "code", ("row1",)))  # type: ignore[arg-type]
    acts.push(PassAct("GB021", "code", ("row2",)))  # type: ignore[arg-type]
    assert acts.pop().feature_id == "GB021" and acts.pop().feature_id == "GB020" and acts.pop() is None


def test_memory_is_read_back_only_for_a_set_and_filter_that_still_exist() -> None:
    memory = PassMemory("grambank", coding.UNCODED, "GB024")
    stored = {f"{PassMemory.group('/p/x.grammarlens')}/{k}": v for k, v in memory.items().items()}
    group = PassMemory.group("/p/x.grammarlens")
    assert group == "coding_pass/|p|x.grammarlens"
    read = PassMemory.read(lambda name: stored.get(f"{group}/{name}"), (FOUR, "grambank", "wals"))
    assert read == memory and "GB024" in read.offer() and "uncoded" in read.offer()
    assert PassMemory.read(lambda name: {"set": "mine", "filter": "all"}.get(name), ("paper",)) is None  # list gone
    assert PassMemory.read(lambda name: {"set": "wals", "filter": "odd"}.get(name), ("wals",)) is None
    assert PassMemory.read(lambda name: None, ("wals",)) is None
    # a pass saved over "paper" (the study's four before issue 29) continues under today's name
    old = PassMemory.read(lambda name: {"set": "paper", "filter": "all", "feature": "49A"}.get(name), (FOUR,))
    assert old == PassMemory(FOUR, coding.ALL, "49A")


@pytest.mark.parametrize("filter, decided, expected", [
    (coding.ALL, (), "GB257"),  # where it stood
    (coding.UNCODED, ("GB257", "GB260"), "GB262"),  # coded since: the next one the filter keeps
])
def test_a_session_continues_where_the_pass_stood(llm_project, filter, decided, expected) -> None:
    project = llm_project.project
    for fid in decided:
        coding.code(project, fid, "1")
    session = PassSession()
    resume = session.project_opened((), lambda sets: PassMemory("paper", filter, "GB257"))
    assert resume is not None and session.view("81A").resume_at == "GB257" and session.view("81A").filter == filter
    assert session.start(project, None, None, current="81A") == expected
    assert session.view(expected).active and session.resume is None  # offered once
    assert session.memory(expected) == PassMemory(FOUR, filter, expected)  # "paper" is shown by its name today
    session.stop()
    assert session.start(project, None, None, current="81A") == "81A"  # a new pass starts at the feature on screen


def test_a_remembered_disagree_filter_waits_for_the_database_values() -> None:
    session = PassSession()
    session.project_opened((), lambda sets: PassMemory("paper", coding.DISAGREE, "81A"))
    assert session.disagree_waiting and session.wanted_filter == coding.ALL


def test_the_plain_modules_import_no_qt() -> None:
    import subprocess
    import sys

    code = ("import sys, gui.coding.coding_session, gui.coding.coding_state; "
            "sys.exit(any(m.startswith('PySide6') for m in sys.modules))")
    repo = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=repo, timeout=60).returncode == 0


class _Store:
    """The three calls of a QSettings the pass memory makes, over a dict."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}

    def value(self, key: str, default: object = None) -> object:
        return self.values.get(key, default)

    def setValue(self, key: str, value: object) -> None:
        self.values[key] = value

    def remove(self, key: str) -> None:
        self.values = {k: v for k, v in self.values.items() if not (k == key or k.startswith(key + "/"))}


def test_the_pass_memory_lives_in_the_app_settings_under_the_projects_path() -> None:
    from gui.coding.coding_state import forget_pass, recall_pass, remember_pass

    store, project = _Store(), Path("/tmp/a/teshi.grammarlens")
    remember_pass(store, project, PassMemory("wals", coding.UNCODED, "81A"))
    remember_pass(store, project, PassMemory("wals", coding.UNCODED, ""))  # a feature outside the set: kept
    assert recall_pass(store, project, ("paper", "wals")) == PassMemory("wals", coding.UNCODED, "81A")
    assert recall_pass(store, Path("/tmp/b/teshi.grammarlens"), ("wals",)) is None  # another project
    forget_pass(store, project)
    assert store.values == {} and recall_pass(store, project, ("wals",)) is None


def test_the_panel_view_is_built_from_the_project_and_the_model_answer(llm_project) -> None:
    """What the coding panel shows, the feature list's marks, the model's code from a real Classification."""
    from core.records.classifications import Classification, ValueRecord
    from core.retrieval import Hit
    from gui.coding.coding_state import coded_marks, coding_view, first_page, model_code, pin_menu_text

    project, catalog = llm_project.project, load_catalog()
    answer = Classification(None, "2026-03-01T10:00:00+00:00", "81A", "Order", "baseline", "Testish", "gpt-4o", "",
                            [ValueRecord("81A", "1", "SOV")], "", "{}", "ok", None, [], [], "h", 1, 1, 1, None, 0.1,
                            False, "json")
    assert model_code(answer, "81A") == "1" and model_code(answer, "49A") is None and model_code(None, "81A") is None
    assert coding_view(project, None, None).why_not.startswith("Pick a feature")
    assert "coded as its 7 Grambank parts" in coding_view(project, catalog.get("116A*"), None).why_not
    coding.code(project, "81A", "1", reviewer="Ana")
    coding.code(project, "GB107", "?", reviewer="Ana")
    view = coding_view(project, catalog.get("81A"), answer)
    assert view.codable and view.current_code == "1" and view.model_code == "1" and view.can_undo
    assert view.status.startswith("SOV · coded by Ana") and view.options[-1][0] == "?"
    assert coded_marks(project) == {"81A": "✔", "GB107": "?"} and coded_marks(None) == {}

    import dataclasses

    from core.models import Rect
    from core.store.repository import get_paragraphs

    paragraph = get_paragraphs(project, [llm_project.paragraph_ids["word_order"]])[0]
    assert pin_menu_text(paragraph, False, "81A") == f"Pin this paragraph (p. {paragraph.page_label}) to 81A"
    assert pin_menu_text(paragraph, True, "81A") == f"Unpin this paragraph (p. {paragraph.page_label}) from 81A"
    placed = dataclasses.replace(paragraph, rects=(Rect(12, 50, 300, 500, 340), Rect(11, 50, 700, 500, 780)))
    hit = Hit(rank=1, score=1.0, paragraph=placed)
    assert first_page([hit], placed.document_id) == 11  # a paragraph running over a page break opens on its first
    assert first_page([hit], placed.document_id + 1) is None and first_page(None, 1) is None
