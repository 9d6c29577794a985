"""Issue 30, items 4-7: one meaning for each figure of ``sample status/matrix/compare``.

Two real projects (the demo grammar, given Grambank languages), values coded through core's API and
model predictions stored as the classifier stores them; the reference is written twice, as a
Grambank-style values table and as a CLDF StructureDataset through pycldf, with the same "?" rows.
Every expected figure is computed by hand in the test.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.cli_runs import run_cli

# reference rows: (glottocode, feature, value); "?" = the database does not know
REFERENCE = [("abad1241", "GB107", "0"), ("abad1241", "GB257", "1"), ("abad1241", "GB260", "1"),
             ("abad1241", "GB262", "?"), ("abad1241", "GB263", "0"),
             ("abar1238", "GB107", "0"), ("abar1238", "GB257", "0"), ("abar1238", "GB260", "?")]
FEATURES = "GB107,GB257,GB260,GB262,GB263"



def _predict(project, feature: str, code: str, label: str) -> None:
    from core.records.classifications import Classification, ValueRecord
    from core.store.classifications import save_classification

    save_classification(project, Classification(
        id=None, created_at="2026-01-02T03:04:05+00:00", feature_id=feature, feature_name=feature, config="rag",
        language="x", model="gpt-4o", base_url="http://127.0.0.1:1/v1", values=[ValueRecord(feature, code, label)],
        reasoning="", raw_answer="", status="ok", problem=None, flags=[], evidence=[], prompt_hash="h",
        prompt_tokens=1, completion_tokens=1, evidence_tokens=1, cost_usd=None, seconds=0.1, cached=False,
        answer_format="conclusion"), {})


@pytest.fixture
def sample(demo_copy) -> Path:
    """Abadi: GB107 0 (coded), GB257 "?", GB260 1 (predicted), GB262 1 (coded), 81A SOV; Mungbam: GB107 1,
    GB257 0 (predicted), GB260 0 (coded)."""
    from core import coding
    from core.models import Language
    from core.store import open_project
    from core.store.repository import set_language

    one, two = demo_copy("sample/abadi.grammarlens"), demo_copy("sample/mungbam.grammarlens")
    with open_project(one, backup=False) as p:
        set_language(p, Language(name="Abadi", glottocode="abad1241", source="user"))
        for fid, value in (("GB107", "0"), ("GB257", "?"), ("GB262", "1"), ("81A", "SOV")):
            coding.code(p, fid, value, reviewer="ana")
        _predict(p, "GB260", "1", "present")
    with open_project(two, backup=False) as p:
        set_language(p, Language(name="Mungbam", glottocode="abar1238", source="user"))
        for fid, value in (("GB107", "1"), ("GB260", "0")):
            coding.code(p, fid, value, reviewer="ben")
        _predict(p, "GB257", "0", "absent")
    return one.parent


def _subset_reference(folder: Path) -> Path:
    folder.mkdir()
    with open(folder / "values_subset.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["Language_ID", "Glottocode", "Parameter_ID", "Value", "Code_ID", "Source"])
        for g, f, v in REFERENCE:
            w.writerow([g, g, f, v, "" if v == "?" else f"{f}-{v}", ""])
    return folder


def _cldf_reference(folder: Path) -> Path:
    import pycldf

    ds = pycldf.StructureDataset.in_dir(folder)
    ds.add_component("LanguageTable")
    ds.write(LanguageTable=[{"ID": g, "Name": g, "Glottocode": g} for g in sorted({g for g, _f, _v in REFERENCE})],
             ValueTable=[{"ID": f"{g}-{f}", "Language_ID": g, "Parameter_ID": f, "Value": v} for g, f, v in REFERENCE])
    return folder


@pytest.mark.parametrize("make", [_subset_reference, _cldf_reference], ids=["values-table", "pycldf"])
def test_sample_compare_has_one_definition_and_counts_every_excluded_item(sample, tmp_path, make) -> None:
    reference = make(tmp_path / "reference")
    code, out, err = run_cli("sample", "compare", sample, "--reference", reference, "--features", FEATURES, "--json")
    assert code == 0, err
    report = json.loads(out)
    o = report["overall"]
    # 8 reference rows; scored (a real value on both sides): Abadi GB107 0/0, GB260 1/1 (predicted),
    # Mungbam GB107 1/0, GB257 0/0 (predicted) -> n 4, 3 agree, agreement 0.75
    assert (o["items"], o["n"], o["agreement"]) == (8, 4, 0.75)
    # ours 0,1,1,0 and theirs 0,1,0,0: p_e = .5*.75 + .5*.25 = .5, kappa = (.75 - .5) / (1 - .5) = .5
    assert o["kappa"] == pytest.approx(0.5) and o["small_n"] is True
    # excluded and counted, each kind: the reference's "?" (Abadi GB262, Mungbam GB260), our "?" (Abadi GB257),
    # no value of ours (Abadi GB263)
    assert (o["excluded"], o["excluded_reference_unknown"], o["excluded_our_unknown"], o["excluded_uncoded"]) == \
        (4, 2, 1, 1)
    # "?" is never a disagreement: only Mungbam GB107 (1 against 0)
    assert [(d["glottocode"], d["feature"]) for d in report["disagreements"]] == [("abar1238", "GB107")]
    # coders' decisions and the model's predictions reported apart
    decided, predicted = report["by_origin"]["decided"], report["by_origin"]["predicted"]
    assert (decided["n"], decided["agreement"], predicted["n"], predicted["agreement"]) == (2, 0.5, 2, 1.0)


def test_reviewed_only_scores_coders_decisions_and_counts_the_predictions_left_out(sample, tmp_path) -> None:
    reference = _subset_reference(tmp_path / "reference")
    code, out, err = run_cli("sample", "compare", sample, "--reference", reference, "--reviewed-only", "--features",
                          FEATURES, "--json")
    assert code == 0, err
    o = json.loads(out)["overall"]
    assert (o["n"], o["agreement"], o["excluded_unreviewed"], o["excluded"]) == (2, 0.5, 2, 6)
    code, out, _err = run_cli("sample", "compare", sample, "--reference", reference, "--reviewed-only", "--features",
                           FEATURES)
    assert "coders' decisions only" in out and "2 unreviewed predictions" in out and "(n 2, small n)" in out


def test_no_overlap_with_the_reference_is_n_a_with_the_reason(sample, tmp_path) -> None:
    reference = tmp_path / "elsewhere"
    reference.mkdir()
    (reference / "values_subset.csv").write_text("Language_ID,Glottocode,Parameter_ID,Value,Code_ID,Source\n"
                                                 "stan1293,stan1293,GB107,1,GB107-1,\n", encoding="utf-8")
    code, out, err = run_cli("sample", "compare", sample, "--reference", reference)
    assert code == 0, err
    assert "agreement n/a (the reference holds no value for these languages and features)" in out
    assert "0.000" not in out


def test_status_columns_are_disjoint_respect_the_feature_set_and_match_the_matrix_sheet(sample, tmp_path) -> None:
    features = "GB107,GB257,GB260,GB262,GB263,GB020"
    code, out, err = run_cli("sample", "status", sample, "--features", features, "--json")
    assert code == 0, err
    rows = {r["glottocode"]: r["counts"] for r in json.loads(out)["languages"]}
    # Abadi over the six: coded GB107, GB262; unknown GB257; predicted GB260; uncoded GB263, GB020
    # (81A is coded but not in the set)
    assert rows["abad1241"] == {"coded": 2, "accepted": 0, "overridden": 0, "unknown": 1, "predicted": 1,
                                "uncoded": 2}
    assert all(sum(c.values()) == 6 for c in rows.values())
    out_csv = tmp_path / "m.csv"
    assert run_cli("sample", "matrix", sample, "--features", features, "--out", out_csv)[0] == 0
    with open(tmp_path / "m.status.csv", newline="", encoding="utf-8") as fh:
        sheet = {r["glottocode"]: r for r in csv.DictReader(fh)}
    for glottocode, counts in rows.items():
        words = [sheet[glottocode][f] for f in features.split(",")]
        assert "" not in words
        assert {w: words.count(w) for w in counts} == counts  # the same words, the same counts
