"""The coding pass's plain data (no window): what it says, what it remembers per project, where it continues."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from core import coding
from core.catalog import load_catalog
from core.coding.coding_pass import ActUndone
from gui.coding.coding_session import PassSession
from gui.coding.coding_state import (CodingView, PassAct, PassActs, PassMemory, choose_first_text, not_a_value_text,
                              refused_text, undone_text)


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
    read = PassMemory.read(lambda name: stored.get(f"{group}/{name}"), ("paper", "grambank", "wals"))
    assert read == memory and "GB024" in read.offer() and "uncoded" in read.offer()
    assert PassMemory.read(lambda name: {"set": "mine", "filter": "all"}.get(name), ("paper",)) is None  # list gone
    assert PassMemory.read(lambda name: {"set": "wals", "filter": "odd"}.get(name), ("wals",)) is None
    assert PassMemory.read(lambda name: None, ("wals",)) is None


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
    assert session.memory(expected) == PassMemory("paper", filter, expected)
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
