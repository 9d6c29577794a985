"""What the value panel says about a model answer, from classifications stored in a project file and read back."""

from __future__ import annotations

from core.records.classifications import Classification, Evidence, Flag, ValueRecord
from core.store import open_project
from core.store.classifications import save_classification
from gui.features.review import describe, latest_classification, value_text

POLAR_PARTS = ("GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291")


def _classification(feature_id: str, values: list[ValueRecord], *, created_at: str = "2026-03-01T10:15:00+00:00",
                    evidence: list[Evidence] | None = None, flags: list[Flag] | None = None,
                    problem: str | None = None, cached: bool = False) -> Classification:
    return Classification(
        id=None, created_at=created_at, feature_id=feature_id, feature_name=feature_id, config="baseline",
        language="Testish", model="gpt-4o", base_url="http://127.0.0.1:9/v1", values=values,
        reasoning="The grammar says so.", raw_answer="{}", status="ok" if values else "no_value", problem=problem,
        flags=flags or [], evidence=evidence or [], prompt_hash="h", prompt_tokens=1200, completion_tokens=34,
        evidence_tokens=900, cost_usd=0.0123, seconds=1.5, cached=cached, answer_format="json")


def test_the_value_panel_reads_stored_classifications(llm_project) -> None:
    """Single values by label, the polar complex as the strategies present, the facts line and the cited pages."""
    project, ids = llm_project.project, llm_project.paragraph_ids
    cited = Evidence(1, 1, "", "1", ids["word_order"], 0.9, cited=True)
    other = Evidence(2, 2, "", "2", ids["negation"], 0.5)
    save_classification(project, _classification("81A", [ValueRecord("81A", "2", "SVO")],
                                                  created_at="2026-03-01T09:00:00+00:00"), {})
    save_classification(project, _classification(
        "81A", [ValueRecord("81A", "1", "SOV")], evidence=[cited, other],
        flags=[Flag("instruction", "A cited paragraph gives the model orders.")]), {})
    present = {"GB257", "GB263"}
    save_classification(project, _classification(
        "116A*", [ValueRecord(f, "1" if f in present else "0", "present" if f in present else "absent")
                  for f in POLAR_PARTS], cached=True), {})
    save_classification(project, _classification("GB107", [], problem="The answer named no value."), {})
    project.close()

    with open_project(llm_project.path) as reopened:
        word_order = latest_classification(reopened, "81A")
        assert isinstance(word_order, Classification) and value_text(word_order) == "SOV"  # the newest of two
        view = describe(word_order, reopened)
        assert view.value == "SOV" and view.reasoning == "The grammar says so."
        assert view.meta == ("gpt-4o · 1,234 tokens · $0.0123 · 2026-03-01 10:15 · "
                             "⚠ A cited paragraph gives the model orders. · cites p. 1")
        assert view.cited_ids == (ids["word_order"],)
        assert [h.paragraph.id for h in view.evidence_hits] == [ids["word_order"], ids["negation"]]

        polar = latest_classification(reopened, "116A*")
        assert value_text(polar) == "Interrogative intonation only + Clause-final question particle"
        assert "from cache" in describe(polar).meta and describe(polar).evidence_hits == []  # no project: no hits
        none = _classification("116A*", [ValueRecord(f, "0", "absent") for f in POLAR_PARTS])
        assert value_text(none) == "none of these strategies"

        empty = latest_classification(reopened, "GB107")
        assert value_text(empty) == "Not enough information"
        assert describe(empty).meta.endswith("The answer named no value.")
        assert latest_classification(reopened, "49A") is None
