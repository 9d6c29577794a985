"""The feature catalog: completeness, value sets, aliases, own definitions, CLDF descriptions."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from core.catalog import load_catalog
from core.catalog.model import UnknownFeature

REPO = Path(__file__).resolve().parent.parent
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


def test_definitions_are_our_own_words() -> None:
    """No definition repeats a sentence of Grambank's description prose."""
    with open(CLDF / "grambank" / "parameters.csv", newline="", encoding="utf-8") as fh:
        descriptions = {r["ID"]: r["Description"] for r in csv.DictReader(fh)}
    catalog = load_catalog()
    for fid, text in descriptions.items():
        sentences = [s.strip() for s in text.replace("\n", " ").split(". ") if len(s.strip()) > 60]
        definition = catalog.get(fid).definition
        assert not any(s in definition for s in sentences), fid


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
