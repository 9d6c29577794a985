"""Decisions by the coder of record: values with or without a model, "?", notes, pins, undo, old reviews."""

from __future__ import annotations

import sqlite3

import pytest

from core import coding
from core.errors import GrammarLensError
from core.llm import Evidence, classify
from core.llm.features import feature_of
from core.profile import build_profile
from core.store import open_project
from core.store.repository import get_paragraphs
from tests.old_projects import old_project
from tests.reviews import add_review, latest_review, list_reviews


def _evidence(llm_project, *names: str) -> list[Evidence]:
    ids = [llm_project.paragraph_ids[n] for n in names]
    return [Evidence(number=i + 1, rank=i + 1, text=p.text, page_label=p.page_label, paragraph_id=p.id)
            for i, p in enumerate(get_paragraphs(llm_project.project, ids))]


def _count(project, table: str) -> int:
    return project.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_a_value_without_any_model_answer_with_pins_note_and_history(llm_project) -> None:
    project, ids = llm_project.project, llm_project.paragraph_ids
    d = coding.code(project, "81A", "SOV", paragraph_ids=[ids["word_order"]], page_labels=["3"], note="see §1",
                    reviewer="Ana")
    assert (d.feature_id, d.code, d.label, d.status, d.reviewer, d.note) == (
        "81A", "1", "SOV", "coded", "Ana", "see §1")
    assert [(p.paragraph_id, p.page_label) for p in d.pins] == [(ids["word_order"], "1"), (None, "3")]
    # a code, a label in any case, and "?" all work; a new value keeps the note and the pins
    d2 = coding.code(project, "81A", "no dominant order", reviewer="Ben")
    assert (d2.code, d2.status, d2.note, d2.pins) == ("7", "coded", "see §1", d.pins)
    d3 = coding.code(project, "GB107", "?", reviewer="Ben")
    assert (d3.code, d3.status, d3.value) == ("?", "unknown", "?")
    assert d3.to_json()["value"] == "?" and d3.to_json()["status"] == "unknown"
    assert coding.current(project, "81A").code == "7"
    assert [h.code for h in coding.history(project, "81A")] == ["1", "7"]


@pytest.mark.parametrize("call, message", [
    (lambda p, ids: coding.code(p, "81A", "XYZ"), "not a value of 81A"),
    (lambda p, ids: coding.code(p, "81A", "present"), "it is a value of"),  # a Grambank value on a WALS feature
    (lambda p, ids: coding.code(p, "GB107", "SOV"), "it is a value of 81A"),
    (lambda p, ids: coding.code(p, "81A", "SOV", paragraph_ids=[999999]), "not part of this project"),
    (lambda p, ids: coding.code(p, "81A", "SOV", page_labels=["cxii"]), "no printed page 'cxii'"),
    (lambda p, ids: coding.code(p, "116A*", "1"), "coded as its 7 Grambank parts"),
    (lambda p, ids: coding.code(p, "99Z", "1"), "99Z"),
    (lambda p, ids: coding.undo(p, "81A"), "Nothing to undo"),
    (lambda p, ids: coding.unpin(p, "81A", [ids["word_order"]]), "no such pin"),
])
def test_bad_input_is_refused_and_nothing_is_stored(llm_project, call, message) -> None:
    project = llm_project.project
    with pytest.raises(GrammarLensError, match=message):
        call(project, llm_project.paragraph_ids)
    assert _count(project, "decisions") == 0 and _count(project, "decision_pins") == 0


def test_undo_restores_the_decision_before_with_its_pins_and_keeps_history(llm_project) -> None:
    project, ids = llm_project.project, llm_project.paragraph_ids
    first = coding.code(project, "81A", "1", paragraph_ids=[ids["word_order"]], reviewer="Ana")
    coding.code(project, "81A", "2", paragraph_ids=[ids["filler0"]], note="changed my mind", reviewer="Ana")
    coding.pin(project, "81A", [ids["filler1"]], reviewer="Ana")
    assert [p.paragraph_id for p in coding.current_pins(project, "81A")] == [ids["filler0"], ids["filler1"]]
    back = coding.undo(project, "81A")  # the pin goes
    assert back.code == "2" and [p.paragraph_id for p in back.pins] == [ids["filler0"]]
    back = coding.undo(project, "81A")  # the second value goes, with its pin and note
    assert back == first and coding.current(project, "81A") == first and first.note is None
    assert coding.undo(project, "81A") is None and coding.current(project, "81A") is None
    with pytest.raises(GrammarLensError, match="Nothing to undo"):
        coding.undo(project, "81A")
    rows = coding.history(project, "81A")
    assert [r.action for r in rows] == ["code", "code", "pin", "undo", "undo", "undo"]
    assert [r.undoes for r in rows[3:]] == [rows[2].id, rows[1].id, rows[0].id]


def test_notes_and_pins_keep_the_value(llm_project) -> None:
    project = llm_project.project
    coding.add_note(project, "GB107", "the grammar only has one example")
    assert coding.current(project, "GB107").status == "note" and not coding.current(project, "GB107").has_value
    coding.code(project, "GB107", "present")
    coding.add_note(project, "GB107", "prefix a-")
    coding.pin(project, "GB107", page_labels=["2"])
    coding.pin(project, "GB107", page_labels=["2"])  # pinned once only
    now = coding.current(project, "GB107")
    assert (now.code, now.status, now.note, [p.page_label for p in now.pins]) == ("1", "coded", "prefix a-", ["2"])
    now = coding.unpin(project, "GB107", page_labels=["2"])
    assert now.pins == () and now.code == "1"


def test_accepting_pins_the_cited_paragraphs_unless_pins_exist(llm_project, llm_server, llm_settings) -> None:
    project, ids = llm_project.project, llm_project.paragraph_ids
    llm_server.add_rule("verb-final", "SOV")
    result = classify(project, feature_of("81A"), llm_settings=llm_settings,
                      evidence=_evidence(llm_project, "filler0", "word_order"))
    cited = [e.paragraph_id for e in result.evidence if e.cited]
    [accepted] = coding.accept(project, result.id, reviewer="Ana")
    assert (accepted.status, accepted.code, accepted.classification_id) == ("accepted", "1", result.id)
    assert [p.paragraph_id for p in accepted.pins] == cited == [ids["word_order"]]
    # coding by hand with a model answer: the same value is an accept, another an override
    assert coding.code(project, "81A", "SVO").status == "overridden"
    assert coding.code(project, "81A", "SOV").status == "accepted"
    # pins chosen by the linguist survive a later accept
    coding.code(project, "81A", "SVO", paragraph_ids=[ids["filler1"]])
    [again] = coding.accept(project, result.id)
    assert [p.paragraph_id for p in again.pins] == [ids["filler1"]]
    entry = next(e for e in build_profile(project) if e.feature_id == "81A")
    assert (entry.status, entry.code, entry.pinned, entry.paragraph_ids) == ("accepted", "1", True, [ids["filler1"]])


def test_polar_questions_are_seven_features_for_decisions(llm_project, llm_server, llm_settings) -> None:
    project = llm_project.project
    llm_server.add_rule("clause-final particle", {"Clause-final question particle": "1"})
    result = classify(project, feature_of("116A*"), llm_settings=llm_settings, evidence=_evidence(llm_project, "polar"))
    rows = coding.accept(project, result.id, reviewer="Ana")
    assert [r.feature_id for r in rows] == ["GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291"]
    assert len({r.batch for r in rows}) == 1 and all(r.parent_id == "116A*" for r in rows)
    coding.code(project, "GB263", "absent", reviewer="Ben")
    coding.undo(project, "GB263")
    assert coding.current(project, "GB263").status == "accepted"
    # the old review API reads the same decisions: one review per act, undone acts left out
    add_review(project, result.id, "override", value="1", feature_id="GB291", reviewer="Cy")
    reviews = list_reviews(project, result.id)
    assert [(r.action, r.feature_id) for r in reviews] == [("accept", "116A*"), ("override", "GB291")]
    assert latest_review(project, result.id, action="override").reviewer == "Cy"
    entries = {e.feature_id: e for e in build_profile(project, ["116A*"])}
    assert entries["GB291"].status == "overridden" and entries["GB263"].status == "accepted"


def _old_project(path) -> None:
    """A project file as GrammarLens wrote it before migration 5 (schema 4), with reviews."""
    conn = sqlite3.connect(old_project(path, 4, language="Testish"))
    with conn:
        conn.execute("INSERT INTO documents (id, sha256, file_name, page_count, label_source) "
                     "VALUES (1, 'x', 't.pdf', 3, 'pdf_labels')")
        for i in (1, 2, 3):
            conn.execute("INSERT INTO pages VALUES (1, ?, ?, 'pdf_labels', 1, 1, 1)", (i, str(i + 40)))
            conn.execute("INSERT INTO paragraphs (id, document_id, seq, pdf_page, page_label, label_source, kind, "
                         "text, rects) VALUES (?, 1, ?, ?, ?, 'pdf_labels', 'prose', 'text', '[]')",
                         (i, i, i, str(i + 40)))
        for cid, fid in ((1, "81A"), (2, "116A*")):
            conn.execute("INSERT INTO classifications (id, created_at, feature_id, config, model, prompt_hash, status) "
                         "VALUES (?, '2026-01-01T00:00:00+00:00', ?, 'rag', 'gpt-4o', 'h', 'ok')", (cid, fid))
            conn.execute("INSERT INTO classification_evidence VALUES (?, 2, 1, 1, 1.0, '42', 1)", (cid,))
        conn.execute("INSERT INTO classification_values VALUES (1, '81A', '1', 'SOV')")
        for part in ("GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291"):
            conn.execute("INSERT INTO classification_values VALUES (2, ?, '0', 'absent')", (part,))
        reviews = [(1, "accept", "81A", None, None, None, "Ana"),
                   (1, "override", "81A", "2", "SVO", "see p. 41", "Ben"),
                   (1, "note", "81A", None, None, "checked twice", "Cy"),
                   (2, "accept", "116A*", None, None, None, "Ana"),
                   (2, "override", "GB263", None, "Not enough information", None, "Ben")]
        for n, (cid, action, fid, code, label, note, who) in enumerate(reviews):
            conn.execute("INSERT INTO reviews (classification_id, created_at, reviewer, action, feature_id, code, "
                         "label, note) VALUES (?,?,?,?,?,?,?,?)",
                         (cid, f"2026-01-02T00:00:0{n}+00:00", who, action, fid, code, label, note))
    conn.close()


def test_migration_5_keeps_the_reviews_of_old_projects(tmp_path) -> None:
    path = tmp_path / "old.grammarlens"
    _old_project(path)
    with open_project(path) as project:
        assert project.schema_version() >= 5
        d = coding.current(project, "81A")
        assert (d.code, d.status, d.reviewer, d.note) == ("2", "overridden", "Cy", "checked twice")
        assert [(p.paragraph_id, p.page_label) for p in d.pins] == [(2, "42")]
        assert [h.action for h in coding.history(project, "81A")] == ["accept", "override", "note"]
        assert coding.current(project, "GB257").status == "accepted"
        gb263 = coding.current(project, "GB263")
        assert (gb263.status, gb263.code) == ("unknown", "?")
        assert [r.action for r in list_reviews(project, 1)] == ["accept", "override", "note"]
        entries = {e.feature_id: e for e in build_profile(project)}
        assert entries["81A"].status == "overridden" and entries["81A"].pages == ["42"]
        assert entries["GB263"].is_unknown and entries["GB260"].status == "accepted"
        # undo works on migrated history too
        assert coding.undo(project, "81A").code == "2" and coding.undo(project, "81A").code == "1"


def test_value_keys_follow_the_databases_codes() -> None:
    assert coding.value_choices("GB020") == [("0", "0", "absent"), ("1", "1", "present"),
                                             ("?", "?", "Not enough information")]
    keys = [k for k, _c, _l in coding.value_choices("81A")]
    assert keys == ["1", "2", "3", "4", "5", "6", "7", "?"]
    with pytest.raises(GrammarLensError):
        coding.value_choices("116A*")
