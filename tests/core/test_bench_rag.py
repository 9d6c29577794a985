"""``bench rag``: the paper's benchmark replayed against the local OpenAI-compatible server.

Canned answers make the metrics checkable: answers equal to gold give F1 = 1.0, and a known
confusion gives the F1 and Matthews correlation computed by hand here.
"""

from __future__ import annotations

import json
import math
import re

import pytest

from bench.rag import load_items, parse_pages, run_bench
from core.catalog import load_catalog
from core.llm import LlmClient, feature_of
from core.llm.metrics import scores

POLAR_STRATEGIES = load_catalog().get("116A*").parts


def _language_of(request: dict) -> str:
    # The question, which names the language, comes after the paragraphs.
    return re.findall(r"in the language (.+?)\.\n", request["messages"][1]["content"])[-1]


def _gold_by_language(shared_dir, feature_id: str) -> dict[str, dict[str, str]]:
    return {it.language: it.gold for it in load_items(shared_dir / "bench" / "rag", feature_of(feature_id))}


def test_metrics_match_hand_computation() -> None:
    gold = ["a", "a", "b", "c"]
    pred = ["a", "b", "b", "b"]
    s = scores(gold, pred)
    f1_a, f1_b = 2 * 1 * 0.5 / 1.5, 2 * (1 / 3) * 1 / (4 / 3)
    assert s.micro_f1 == pytest.approx(0.5)
    assert s.macro_f1 == pytest.approx((f1_a + f1_b + 0) / 3)
    assert s.weighted_f1 == pytest.approx((2 * f1_a + f1_b) / 4)
    # sklearn's multiclass MCC: c=2, s=4, t=(2,1,1), p=(1,3,0)
    assert s.mcc == pytest.approx((2 * 4 - (2 * 1 + 1 * 3)) / math.sqrt((16 - 6) * (16 - 10)))
    assert parse_pages("25, 425, 631-632 (also 7)") == {7, 25, 425, 631, 632}


def test_gold_answers_give_f1_one_for_polar_questions(shared_dir, llm_server, llm_settings) -> None:
    gold = _gold_by_language(shared_dir, "116A*")
    names = dict(POLAR_STRATEGIES)
    llm_server.json_schema = "reject"  # the paper's "Conclusion:" format, after the automatic fallback
    llm_server.answer_fn = lambda r: "Reasoning.\nConclusion: " + ", ".join(
        f"{names[k]}: {v}" for k, v in gold[_language_of(r)].items())
    report = run_bench(shared_dir / "bench" / "rag", feature_of("116A*"), LlmClient(llm_settings), config="rag",
                       ranking="paper", limit=10)
    assert len(report.results) == 10 and not any(r.error for r in report.results)
    assert set(report.scores) == {gb for gb, _ in POLAR_STRATEGIES}
    for s in report.scores.values():
        assert (s.micro_f1, s.macro_f1, s.weighted_f1) == (1.0, 1.0, 1.0)
    # The paper's order and all of its chunks (up to the context) went into the prompt.
    first = llm_server.chat_requests[-1]["messages"][1]["content"]
    assert first.count("<paragraph number=") >= 20


def test_known_confusion_baseline_gb107(shared_dir, llm_server, llm_settings) -> None:
    """Answering "1" for every grammar: 44 gold 1, 28 gold 0, 2 not mentioned (74 grammars)."""
    llm_server.answer_fn = lambda r: '{"reasoning": "guess", "value": "1"}'
    report = run_bench(shared_dir / "bench" / "rag", feature_of("GB107"), LlmClient(llm_settings), config="baseline")
    s = report.scores["GB107"]
    f1_one = 2 * (44 / 74) * 1.0 / (44 / 74 + 1.0)
    assert s.n == 74
    assert s.micro_f1 == pytest.approx(44 / 74)
    assert s.macro_f1 == pytest.approx(f1_one / 3)
    assert s.weighted_f1 == pytest.approx(f1_one * 44 / 74)
    assert s.mcc == 0.0
    assert report.paper_reference["GB107"] == (0.5685, 0.5639, 0.5700)  # Table 4, baseline


@pytest.mark.slow
def test_cli_bench_ranking_ours_with_a_known_confusion(shared_dir, llm_server, llm_settings, capsys) -> None:
    """81A with every SOV answered as SVO; the CLI reports budget and gold-page coverage."""
    from cli import main

    gold = _gold_by_language(shared_dir, "81A")
    llm_server.answer_fn = lambda r: ("Conclusion: " + {"SOV": "SVO"}.get(gold[_language_of(r)]["81A"],
                                                                         gold[_language_of(r)]["81A"]))
    code = main(["bench", "rag", "--data", str(shared_dir / "bench" / "rag"), "--feature", "81A", "--ranking", "ours",
                 "--base-url", llm_server.url, "--json", "--concurrency", "2"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["errors"] == 0 and out["grammars"] == 73
    s = out["scores"]["81A"]
    # Gold: SOV 33, No dominant order 21, SVO 10, Not mentioned 5, VSO 4 (one "N/A" skipped).
    f1_svo = 2 * (10 / 43) * 1.0 / (10 / 43 + 1.0)
    assert s["micro_f1"] == pytest.approx(40 / 73)
    assert s["macro_f1"] == pytest.approx((0 + f1_svo + 1 + 1 + 1) / 5)
    assert s["weighted_f1"] == pytest.approx((f1_svo * 10 + 21 + 5 + 4) / 73)
    assert s["mcc"] == pytest.approx((40 * 73 - 912) / math.sqrt((73**2 - 2331) * (73**2 - 1671)))
    assert out["median_evidence_tokens"] <= 6000
    assert 0.0 <= out["gold_page_in_evidence"] <= 1.0 and out["grammars_with_gold_pages"] > 50
    assert out["paper_row"] == "reranker"
