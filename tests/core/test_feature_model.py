"""One feature model (issue 11): a feature's codes, labels and parts agree wherever they are shown.

The catalog's Feature is the only definition of a feature; these tests walk every feature through
the places that show or read its values (prompt option list and JSON schema, parser, stored values,
profile entries, CSV and CLDF exports, the reviewer's override options) and check that each
place uses the catalog's codes and labels.  They also hold the "must show" of issue 11: the
rag-guidelines prompt of a Grambank feature, as the local server received it, carries Grambank's
procedure, and the rag prompt its summary.
"""

from __future__ import annotations

import csv
import json

import pytest

from core.catalog import load_catalog
from core.catalog.model import NOT_ENOUGH_INFORMATION
from core.llm.features import feature_of
from core.llm.parse import match_code, parse_answer
from core.llm.prompts import OPTIONS_LINE, build_prompt, json_schema_format

CATALOG = load_catalog()


def test_every_feature_has_one_value_set_that_prompt_schema_and_parser_agree_on() -> None:
    for feature in CATALOG:
        if feature.is_multilabel:
            continue
        codes = feature.codes()
        assert len(set(codes)) == len(codes) and len(set(feature.labels())) == len(codes), feature.id
        # The prompt's options are the same codes (in the prompt's order), each worded once.
        assert sorted(c for c, _ in feature.option_pairs()) == sorted(codes), feature.id
        prompt = build_prompt(feature, "baseline", "Testish", [], "conclusion").messages[1]["content"]
        options = feature.prompt_options()
        assert OPTIONS_LINE.format(count=len(options), options=", ".join(options)) in prompt, feature.id
        schema = json_schema_format(feature, cite=False)["json_schema"]["schema"]
        assert schema["properties"]["value"]["enum"] == options, feature.id
        # Every option word, label and synonym is read back as its code, and stored with the catalog label.
        for code, word in feature.option_pairs():
            parsed = parse_answer(json.dumps({"reasoning": "r", "value": word}), feature)
            assert [(v.feature_id, v.code, v.label) for v in parsed.values] == [
                (feature.id, code, feature.value_label(code))], (feature.id, word)
        for code, label in feature.values:
            assert match_code(label, feature) == code, (feature.id, label)
        for phrase, code in feature.synonyms.items():
            assert code in codes, (feature.id, phrase)
        nei = parse_answer(json.dumps({"value": NOT_ENOUGH_INFORMATION}), feature).values
        assert [(v.code, v.label) for v in nei] == [(None, NOT_ENOUGH_INFORMATION)]


def test_grambank_binary_features_use_grambank_codes_and_labels_everywhere() -> None:
    """Codes 0/1 with labels absent/present, as Grambank's codes.csv, for all binary features, GB107 included."""
    with open(_shared() / "cldf" / "grambank" / "codes.csv", newline="", encoding="utf-8") as fh:
        grambank = {}
        for row in csv.DictReader(fh):
            grambank.setdefault(row["Parameter_ID"], []).append((row["Name"], row["Description"]))
    binary = [f for f in CATALOG.by_dataset("Grambank") if sorted(f.codes()) == ["0", "1"]]
    assert len(binary) >= 170
    for feature in binary:
        assert dict(feature.values) == {"0": "absent", "1": "present"}, feature.id
        assert sorted(grambank[feature.id]) == [("0", "absent"), ("1", "present")], feature.id
    gb107 = CATALOG.get("GB107")
    assert gb107.option_words() == ["1", "0"]  # the paper's Appendix E wording of the same two codes
    assert [(v.code, v.label) for v in parse_answer("Conclusion: 1", gb107).values] == [("1", "present")]


def test_polar_questions_are_defined_once_as_seven_grambank_parts() -> None:
    pq = CATALOG.get("116A*")
    assert pq is CATALOG.get("PQ") and pq.is_multilabel and pq.values == ()
    assert pq.multi_label == ("GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291")
    assert [s.id for s in pq.sub_features] == list(pq.multi_label)
    assert all(s is CATALOG.get(s.id) for s in pq.sub_features)  # the same objects, not copies
    for sub in pq.sub_features:
        assert dict(sub.values) == {"0": "absent", "1": "present"}
        for code, word in pq.option_pairs():
            assert match_code(word, sub, pq.option_pairs()) == code
    schema = json_schema_format(pq, cite=True)["json_schema"]["schema"]["properties"]["strategies"]
    assert list(schema["properties"]) == [label for _, label in pq.parts]
    prompt = build_prompt(pq, "rag", "Testish", [], "conclusion").messages[1]["content"]
    assert all(label in prompt for _, label in pq.parts)
    answer = "Conclusion: " + ", ".join(f"{label}: {1 if i == 3 else 0}" for i, (_, label) in enumerate(pq.parts))
    assert {v.feature_id: (v.code, v.label) for v in parse_answer(answer, pq).values}["GB263"] == ("1", "present")


def test_stored_profile_export_and_review_options_show_the_catalog_labels(llm_project, llm_server, llm_settings,
                                                                         tmp_path) -> None:
    """Classify through the local server, then read the values back from every place that shows them."""
    from core.coding import value_choices
    from core.export.flat import export_profile
    from core.llm import classify
    from core.profile.entries import build_profile

    answers = {"81A": "SVO", "GB107": "1", "49A": "5 cases", "GB020": "present", "GB021": "absent",
               "116A*": {"Clause-final question particle": "1"}}
    llm_server.add_rule("dominant word order", answers["81A"])
    llm_server.add_rule("standard negation in the language", answers["GB107"])
    llm_server.add_rule("number of cases", answers["49A"])
    llm_server.add_rule("strategies for forming polar questions", answers["116A*"])
    llm_server.add_rule(CATALOG.get("GB020").name, answers["GB020"])
    llm_server.add_rule(CATALOG.get("GB021").name, answers["GB021"])
    stored = {}
    for fid in answers:
        result = classify(llm_project.project, feature_of(fid), config="baseline", llm_settings=llm_settings)
        assert result.status == "ok", (fid, result.problem)
        stored.update({v.feature_id: (v.code, v.label) for v in result.values})
    expected = {"81A": ("2", "SVO"), "GB107": ("1", "present"), "49A": ("5", "5 cases"), "GB020": ("1", "present"),
                "GB021": ("0", "absent"), "GB263": ("1", "present"), "GB257": ("0", "absent")}
    for fid, pair in expected.items():
        assert stored[fid] == pair and CATALOG.get(fid).value_label(pair[0]) == pair[1], fid
    entries = {e.feature_id: e for e in build_profile(llm_project.project)}
    assert {fid: (entries[fid].code, entries[fid].label) for fid in expected} == expected
    assert entries["GB263"].parent_id == "116A*"
    with open(export_profile(llm_project.project, "csv", tmp_path / "csv"), newline="", encoding="utf-8") as fh:
        rows = {r["feature_id"]: (r["code"], r["label"]) for r in csv.DictReader(fh)}
    assert {fid: rows[fid] for fid in expected} == expected
    metadata = export_profile(llm_project.project, "cldf", tmp_path / "cldf")
    with open(metadata.parent / "codes.csv", newline="", encoding="utf-8") as fh:
        names = {r["ID"]: r["Name"] for r in csv.DictReader(fh)}
    for fid, (code, label) in expected.items():
        assert names[f"{fid}-{code}"] == label
    # The coder is offered exactly the catalog's labels, then "?" (116A* is coded as its parts).
    assert [label for _key, _code, label in value_choices("GB107")] == ["absent", "present", NOT_ENOUGH_INFORMATION]
    assert [label for _key, _code, label in value_choices("81A")][:-1] == CATALOG.get("81A").labels()
    assert [label for _key, _code, label in value_choices("GB257")][:-1] == ["absent", "present"]


def test_database_reference_values_are_worded_with_the_catalog_labels(shared_dir) -> None:
    """The agreement column shows Grambank's 1 as "present", as the project's own values."""
    from core.profile.agreement import load_reference_values

    refs = load_reference_values([shared_dir / "cldf"], "nucl1235")  # Iranian Armenian
    grambank = [r for r in refs.values() if r.dataset == "Grambank"]
    wals = [r for r in refs.values() if r.dataset == "WALS"]
    assert grambank and wals
    for ref in grambank + wals:
        assert ref.label == CATALOG.get(ref.feature_id).value_label(ref.code), ref
    assert {r.label for r in grambank} <= {"absent", "present"}


@pytest.mark.parametrize("feature_id", ["GB020", "GB086"])
def test_rag_guidelines_prompt_at_the_server_carries_grambank_procedure_and_rag_its_summary(
        feature_id, llm_project, llm_server, llm_settings) -> None:
    """Must show (issue 11): not one of the paper's four; the prompt as the local server received it."""
    from core.llm import classify
    from core.llm.prompts import Evidence

    feature = CATALOG.get(feature_id)
    assert feature.id not in ("81A", "49A", "GB107", "116A*") and feature.dataset == "Grambank"
    evidence = [Evidence(1, 1, "Testish has no articles.", "12", llm_project.paragraph_ids["filler0"])]
    llm_server.add_rule(feature.name, "absent")
    for config in ("rag", "rag-guidelines"):
        classify(llm_project.project, feature_of(feature.id), config=config, llm_settings=llm_settings,
                 evidence=evidence)
    rag, cot = (r["messages"][1]["content"] for r in llm_server.chat_requests[-2:])
    summary, procedure = feature.definition, feature.guidelines
    assert len(summary) > 100 and len(procedure) > 100
    assert summary in rag and procedure not in rag
    assert summary in cot and procedure in cot
    assert procedure.splitlines()[0].startswith("1. Code") or "Code" in procedure
    assert rag.count("<paragraph number=") == cot.count("<paragraph number=") == 1


def _shared():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent.parent.parent / "shared"
