"""``bench profile``: the scorer by hand, and the command on a small slice (one grammar, four features).

The grammar (Iranian Armenian, 228 pages, ~1 s to ingest) is ingested once into a module-wide
work folder; the LLM path runs against the local OpenAI-compatible server with canned answers
whose figures are worked out below.
"""

from __future__ import annotations

import json
import math

import pytest

from core.profile.scoring import NO_VALUE, GoldValue, load_gold, score_cell, score_profiles

# Iranian Armenian in Grambank: GB020 1, GB021 1, GB022 0, GB026 0.
SLICE = ("GB020", "GB021", "GB022", "GB026")
LANGUAGE = "Iranian Armenian"


def test_scores_by_hand_with_no_answer_and_the_absent_baseline() -> None:
    gold = ["1", "1", "0", "0"]
    predicted = ["1", NO_VALUE, "0", "1"]
    cell = score_cell(gold, predicted)
    assert cell.n == 4 and cell.accuracy == 0.5 and cell.no_value_share == 0.25
    # class 1: P = R = 1/2; class 0: P = 1, R = 1/2 -> F1 2/3; "?" earns no class of its own.
    assert cell.macro_f1 == pytest.approx((0.5 + 2 / 3) / 2)
    # Gorodkin: s = 4, c = 2, t = {1: 2, 0: 2}, p = {1: 2, ?: 1, 0: 1}
    assert cell.mcc == pytest.approx((2 * 4 - (2 * 2 + 1 * 2)) / math.sqrt((16 - 8) * (16 - 6)))
    assert (cell.baseline_accuracy, cell.baseline_mcc) == (0.5, 0.0)
    assert cell.baseline_macro_f1 == pytest.approx((2 / 3 + 0) / 2)


def test_score_profiles_slices_by_language_and_feature_and_counts_missing_values() -> None:
    gold = [GoldValue("a.pdf", "A", "aaaa1234", "GB020", "1"), GoldValue("a.pdf", "A", "aaaa1234", "GB021", "0"),
            GoldValue("b.pdf", "B", "bbbb1234", "GB020", "0")]
    scores = score_profiles(gold, {("aaaa1234", "GB020"): "1", ("aaaa1234", "GB021"): None})
    assert scores.missing == 1 and scores.overall.n == 3
    assert scores.overall.accuracy == pytest.approx(1 / 3)
    assert scores.by_language["A"].accuracy == 0.5 and scores.by_language["B"].no_value_share == 1.0
    assert scores.by_feature["GB020"].n == 2


def test_gold_file_is_read_with_its_caveats(shared_dir) -> None:
    gold = load_gold(shared_dir / "bench" / "profile" / "grambank_gold.csv")
    assert len(gold) == 953 and len({g.feature_id for g in gold}) == 174
    assert {g.code for g in gold} == {"0", "1"}
    armenian = {g.feature_id: g.code for g in gold if g.language == LANGUAGE}
    assert [armenian[f] for f in SLICE] == ["1", "1", "0", "0"]


@pytest.fixture(scope="module")
def work_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("bench_profile")


def _run(args: list[str], capsys) -> dict:
    from cli import main

    code = main(["bench", "profile", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _common(shared_dir, work_dir) -> list[str]:
    return ["--gold", str(shared_dir / "bench" / "profile" / "grambank_gold.csv"),
            "--grammars", str(shared_dir / "grammars"), "--work", str(work_dir), "--languages", LANGUAGE,
            "--features", ",".join(SLICE), "--no-reranker", "--json"]


@pytest.mark.slow
def test_no_llm_prints_evidence_statistics_and_reuses_the_ingested_grammar(shared_dir, work_dir, capsys) -> None:
    out = _run(_common(shared_dir, work_dir) + ["--no-llm"], capsys)
    assert out["mode"] == "retrieval" and out["scores"] is None and out["languages"] == [LANGUAGE]
    assert set(out["evidence"]) == set(SLICE)
    for stats in out["evidence"].values():
        assert stats["languages"] == 1 and 0.0 <= stats["vocabulary_hit_share"] <= 1.0
        assert math.isfinite(stats["mean_top_score"])
    assert out["evidence"]["GB020"]["gold_present_share"] == 1.0
    assert out["evidence"]["GB022"]["gold_present_share"] == 0.0
    assert out["evidence"]["GB020"]["vocabulary_hit_share"] == 1.0  # articles are described in this grammar
    gb020, gb022 = out["evidence"]["GB020"], out["evidence"]["GB022"]
    assert gb020["hit_share_when_present"] == 1.0 and gb020["hit_share_when_absent"] is None  # gold: GB020 1
    assert gb022["hit_share_when_present"] is None and gb022["hit_share_when_absent"] in (0.0, 1.0)  # gold: GB022 0
    first = out["ingest_seconds"][LANGUAGE]
    again = _run(_common(shared_dir, work_dir) + ["--no-llm"], capsys)
    assert again["ingest_seconds"][LANGUAGE] < max(0.5, first / 2)  # reused, not ingested again
    from core.store import open_project
    from core.store.repository import get_language, list_documents

    with open_project(work_dir / "354_Iranian_Armenian.grammarlens", readonly=True) as project:
        assert len(list_documents(project)) == 1 and get_language(project).glottocode == "nucl1235"


@pytest.mark.slow
def test_llm_path_against_the_local_server_gives_the_hand_computed_figures(shared_dir, work_dir, llm_server,
                                                                           capsys) -> None:
    """GB020 right (present), GB021 not enough information, GB022 right (absent), GB026 wrong (present)."""
    from core.catalog import load_catalog

    catalog = load_catalog()
    for fid, answer in (("GB020", "present"), ("GB022", "absent"), ("GB026", "present")):
        llm_server.add_rule(catalog.get(fid).name, answer, cite=[1])
    out = _run(_common(shared_dir, work_dir) + ["--base-url", llm_server.url, "--concurrency", "2"], capsys)
    overall = out["scores"]["overall"]
    assert overall["n"] == 4 and overall["accuracy"] == 0.5 and overall["no_value_share"] == 0.25
    assert overall["macro_f1"] == pytest.approx((0.5 + 2 / 3) / 2)
    assert overall["mcc"] == pytest.approx(2 / math.sqrt(80))
    assert overall["baseline_accuracy"] == 0.5 and overall["baseline_mcc"] == 0.0
    assert out["scores"]["by_language"][LANGUAGE]["n"] == 4
    assert out["scores"]["by_feature"]["GB026"]["accuracy"] == 0.0
    assert len([r for r in llm_server.chat_requests if "Iranian Armenian" in r["messages"][1]["content"]]) == 4
    # A second run resumes the finished job: no request is sent again.
    sent = len(llm_server.chat_requests)
    again = _run(_common(shared_dir, work_dir) + ["--base-url", llm_server.url], capsys)
    assert len(llm_server.chat_requests) == sent and again["scores"]["overall"] == overall
