"""The feature catalog: completeness, value sets, aliases, own definitions, CLDF descriptions."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from core.catalog import load_catalog
from core.catalog.model import UnknownFeature

REPO = Path(__file__).resolve().parents[2]
CLDF = REPO.parent / "shared" / "cldf"


def test_catalog_has_every_wals_and_grambank_feature_with_values() -> None:
    catalog = load_catalog()
    wals, grambank = catalog.by_dataset("WALS"), catalog.by_dataset("Grambank")
    assert len(wals) == 192 and len(grambank) == 195
    for feature in wals + grambank:
        assert feature.values, feature.id
        assert all(code and label for code, label in feature.values), feature.id
        assert feature.definition and feature.name
    assert load_catalog().get("81A").values[1] == ("2", "SVO")
    assert load_catalog().get("GB107").values == (("0", "absent"), ("1", "present"))


def test_paper_features_are_curated_and_polar_questions_are_multi_label() -> None:
    catalog = load_catalog()
    pq = catalog.get("PQ")
    assert pq is catalog.get("116A*") and pq.dataset == "GrammarLens"
    assert pq.multi_label == ("GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291")
    assert all(part in catalog for part in pq.multi_label)
    for fid in ("81A", "GB107", "PQ", "49A"):
        feature = catalog.get(fid)
        assert feature.curated and feature.vocabulary.values and feature.queries["descriptive"]
    assert catalog.get("wals 81a").id == "81A" and catalog.get("gb107").id == "GB107"
    with pytest.raises(UnknownFeature):
        catalog.get("999Z")


def test_search_finds_features_by_words() -> None:
    catalog = load_catalog()
    assert catalog.search("polar")[0].id == "116A*"
    assert "81A" in [f.id for f in catalog.search("subject object verb")]
    assert catalog.search("81A")[0].id == "81A"


def test_grambank_features_carry_grambank_summary_procedure_and_examples() -> None:
    """Every Grambank feature's definition is its Summary, its guidelines its Procedure (issue 11)."""
    with open(CLDF / "grambank" / "parameters.csv", newline="", encoding="utf-8") as fh:
        descriptions = {r["ID"]: r["Description"] for r in csv.DictReader(fh)}
    catalog = load_catalog()
    assert len(descriptions) == 195
    for fid, text in descriptions.items():
        feature = catalog.get(fid)
        if fid == "GB107":  # one of the paper's four: its prompts are the paper's
            continue
        summary = text.split("## Summary", 1)[1].split("\n## ", 1)[0]
        procedure = text.split("## Procedure", 1)[1].split("\n## ", 1)[0]
        for source, text_in_catalog in ((summary, feature.definition), (procedure, feature.guidelines)):
            plain = [line.strip() for line in source.splitlines() if line.strip() and "](" not in line]
            assert text_in_catalog and (not plain or plain[0] in text_in_catalog), fid
        assert "## " not in feature.definition and "## " not in feature.guidelines, fid
        assert feature.examples or "## Examples" not in text, fid
    assert "Grambank v1.0" in catalog.about and "CC-BY 4.0" in catalog.about and "Skirgård" in catalog.about


def test_paper_features_keep_our_own_words() -> None:
    """The paper's four features are defined in GrammarLens's words (core/catalog/curated.py), not copied."""
    with open(CLDF / "grambank" / "parameters.csv", newline="", encoding="utf-8") as fh:
        gb107 = next(r["Description"] for r in csv.DictReader(fh) if r["ID"] == "GB107")
    sentences = [s.strip() for s in gb107.replace("\n", " ").split(". ") if len(s.strip()) > 60]
    feature = load_catalog().get("GB107")
    assert not any(s in feature.definition + feature.guidelines for s in sentences)


def test_grambank_set_comes_in_the_coders_working_order() -> None:
    """feature_grouping_for_coding.csv: ENumLab/ELab order, and the units a coder looks for."""
    with open(CLDF / "grambank" / "feature_grouping_for_coding.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    catalog = load_catalog()
    grambank = catalog.by_dataset("Grambank")
    assert [f.id for f in grambank] == [f.id for f in catalog.grambank_in_coding_order()]
    numbers = [float(catalog.get(f.id).coding["group_number"]) for f in grambank]
    assert numbers == sorted(numbers)
    by_id = {r["Feature_ID"]: r for r in rows}
    gb020 = catalog.get("GB020")
    assert gb020.coding["units"] == by_id["GB020"]["Relevant units"] and gb020.coding["group"] == by_id["GB020"]["ELab"]
    from core.coding.feature_sets import resolve_feature_set

    assert resolve_feature_set(None, "grambank")[:4] == [f.id for f in grambank[:4]]


def test_vocabulary_files_are_merged_when_present_and_optional(tmp_path: Path) -> None:
    """resources/vocabulary/*.json replaces the bare-word vocabulary and marks the feature curated."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_catalog", REPO / "scripts" / "build_catalog.py")
    build_catalog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_catalog)
    bare = {f["id"]: f for f in build_catalog.build(CLDF, tmp_path / "none")["features"]}
    assert not bare["GB021"]["curated"] and bare["81A"]["curated"]
    (tmp_path / "grambank.json").write_text(json.dumps(
        {"GB021": {"topic": ["indefinite article"], "values": ["has no indefinite article"]}}), encoding="utf-8")
    (tmp_path / "wals.json").write_text(json.dumps(
        {"1A": {"topic": ["consonant inventory"], "values": ["small consonant inventory"],
                "definition": "How many consonants a language has.", "value_definitions": {"1": "6-14 consonants."}},
         "81A": {"topic": ["not used"], "values": []}}), encoding="utf-8")
    merged = {f["id"]: f for f in build_catalog.build(CLDF, tmp_path)["features"]}
    assert merged["GB021"]["curated"] and merged["GB021"]["vocabulary"]["values"] == ["has no indefinite article"]
    assert merged["1A"]["definition"] == "How many consonants a language has."
    assert merged["1A"]["value_definitions"] == {"1": "6-14 consonants."}
    assert "6-14 consonants." in merged["1A"]["guidelines"]
    assert merged["81A"]["vocabulary"] == bare["81A"]["vocabulary"]  # the paper's hand-tuned vocabulary stays
    assert not merged["GB022"]["curated"]


def test_build_script_reproduces_the_shipped_catalog(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "features.json"
    subprocess.run([sys.executable, str(REPO / "scripts" / "build_catalog.py"), "--cldf", str(CLDF), "--out", str(out)],
                   check=True, capture_output=True)
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(
        (REPO / "resources" / "features.json").read_text(encoding="utf-8"))


def test_full_descriptions_come_from_a_cldf_folder_via_pycldf() -> None:
    from core.catalog.cldf_descriptions import load_cldf_descriptions

    descriptions = load_cldf_descriptions(CLDF)
    assert "polar" in descriptions["GB257"].lower()
    assert "subject" in descriptions["81A"].lower()  # from chapter_81.html beside the WALS metadata


def test_search_finds_features_by_the_terms_grammars_use() -> None:
    """A linguist types 'word order', not 'order of subject, object and verb'."""
    from core.catalog import load_catalog

    catalog = load_catalog()
    assert catalog.search("word order")[0].id == "81A"
    assert catalog.search("negation")[0].id == "GB107"
    assert catalog.search("polar question")[0].id == "116A*"
