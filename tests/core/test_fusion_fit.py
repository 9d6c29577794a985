"""Fitted fusion weights: the fit ranks as the app does, the shipped file is what retrieval reads, LOGO chooses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bench.fusion_fit import PairSignals, final_order, fit, grid_points, leave_one_grammar_out, order, scores
from bench.judged_ablation import ablation_rankings, rerank_effect
from core.catalog import load_catalog
from core.retrieval.combine import combine, keep_first_order, keep_first_set
from core.retrieval.fusion_weights import FALLBACK, fitted_weights, weights_path
from core.retrieval.pipeline import retrieve
from core.retrieval.settings import RetrievalSettings
from core.store import open_project
from tests.fixtures_retrieval import build_project


def _pair(hits, feature: str = "81A", file: str = "mini.pdf", gains=None) -> PairSignals:
    names = sorted({k for h in hits for k in h.signals} - {"score"})
    signals = {n: np.array([h.signals[n] for h in hits], dtype=np.float64) for n in names}
    gains = np.zeros(len(hits)) if gains is None else np.asarray(gains, dtype=np.float64)
    return PairSignals(feature, file, signals, gains, np.ones(len(hits), dtype=bool), [int(g) for g in gains])


def test_the_fit_recomputes_exactly_the_apps_ranking(mini_project: Path) -> None:
    settings = RetrievalSettings(reranker=None, final_top=1000)
    weights = {"signal_weight": settings.signal_weight, "section_weight": settings.section_weight,
               "dictionary_penalty": settings.dictionary_penalty, "opening_weight": settings.opening_weight,
               "fragment_penalty": settings.fragment_penalty, "opening_bonus": settings.opening_bonus}
    with open_project(mini_project) as project:
        hits = retrieve(project, load_catalog().get("81A"), settings)
    pair = _pair(hits)
    recomputed = scores(pair, weights, with_model=False)
    np.testing.assert_allclose(recomputed, [h.score for h in hits], atol=1e-9)
    assert order(recomputed).tolist() == list(range(len(hits)))  # hits come best first


def test_the_shipped_weights_are_the_settings_defaults_and_carry_their_logo_figures() -> None:
    data = json.loads(weights_path().read_text(encoding="utf-8"))
    shipped = fitted_weights()
    defaults = RetrievalSettings()
    assert shipped == {name: float(data["weights"][name]) for name in FALLBACK}
    assert (defaults.section_weight, defaults.signal_weight) == (shipped["section_weight"], shipped["signal_weight"])
    assert data["logo"]["ndcg@10"] > 0 and len(data["logo"]["folds"]) == 7 and data["pairs"] == 52


def test_the_first_order_keeps_its_lead_unless_clearly_beaten() -> None:
    scores_ = np.array([1.00, 1.05, 0.50, 2.00])
    first, final = [0, 2, 1, 3], [3, 1, 0, 2]
    assert keep_first_order(first, final, scores_, top=3, margin=0.1) == final  # 3 beats 0 by 1.0: the model wins
    close = np.array([1.00, 1.05, 0.50, 0.2])
    assert keep_first_order(first, [1, 0, 2, 3], close, top=3, margin=0.1) == [0, 1, 2, 3]
    # paragraph 0 stays first (beaten by 0.05 only); 2 is beaten clearly by 1, so the walk ends there
    assert keep_first_order([0, 2], [1, 0, 2, 3], close, top=3, margin=0.1) == [0, 1, 2, 3]
    assert keep_first_order(first, final, scores_, top=0, margin=0.1) == final


def test_the_first_orders_top_stays_in_the_top_unless_a_newcomer_beats_it_clearly() -> None:
    scores_ = np.array([3.0, 2.0, 1.00, 1.05, 0.5])
    first = [0, 1, 2, 4, 3]  # the first order's top 3: 0, 1, 2
    final = [0, 1, 3, 2, 4]  # the model brings 3 in, pushing 2 out, by 0.05 only
    assert keep_first_set(first, final, scores_, top=3, margin=0.2) == [0, 1, 2, 3, 4]
    assert keep_first_set(first, final, scores_, top=3, margin=0.05) == final  # beaten by the margin: stays out
    assert keep_first_set(first, final, scores_, top=0, margin=0.2) == final
    # the order inside the top is the model's: only who is in it is guarded
    assert keep_first_set(first, [1, 0, 2, 3, 4], scores_, top=3, margin=0.2) == [1, 0, 2, 3, 4]
    # two newcomers, one clearly better: the weaker one swaps back, the clear winner stays
    clear = np.array([3.0, 2.0, 1.0, 0.9, 1.5, 1.05])
    assert keep_first_set([0, 1, 2, 3, 4, 5], [0, 4, 5, 1, 2, 3], clear, top=4, margin=0.2) == [0, 4, 2, 1, 5, 3]


def test_the_app_keeps_the_first_top_five_in_view_when_the_model_only_nudges() -> None:
    # six candidates in BM25 order; the vocabulary puts 0-4 first, the embedding lifts 5 just past 4
    bm25 = np.array([6.0, 5.0, 4.0, 3.0, 2.0, 1.0])
    vocabulary = np.array([2.0, 1.8, 1.6, 1.45, 1.3, 1.1])
    dense = np.array([0.5, 0.5, 0.5, 0.5, 0.1, 0.9])
    guarded = RetrievalSettings(reranker="m", stable_top=0, bm25_top=6)
    assert combine(guarded, bm25, vocabulary, dense).order[:5] == [0, 1, 2, 3, 4]
    free = combine(guarded.with_(stable_set_top=0), bm25, vocabulary, dense)
    assert 5 in free.order[:5] and 4 not in free.order[:5]


def _synthetic(file: str, section_decides: bool) -> PairSignals:
    """Four candidates, the last under a heading naming the topic; it decides (gain 2), or the BM25 best does."""
    n = 4
    signals = {
        "bm25": np.array([3.0, 1.0, 0.5, 0.2]), "bm25_vocabulary": np.array([1.0, 0.5, 0.4, 0.1]),
        "vocabulary": np.zeros(n), "section": np.array([0.0, 0.0, 0.0, 1.0]),
        "outside": np.zeros(n), "dictionary": np.zeros(n), "furniture": np.zeros(n),
    }
    gains = [0, 0, 0, 2] if section_decides else [2, 0, 0, 0]
    return PairSignals("GB107", file, signals, np.array(gains, dtype=np.float64), np.ones(n, dtype=bool), gains)


def test_leave_one_grammar_out_chooses_on_the_other_grammars() -> None:
    pairs = [_synthetic("a.pdf", True), _synthetic("b.pdf", True), _synthetic("c.pdf", False)]
    points = grid_points({"signal_weight": (0.25,), "section_weight": (0.0, 3.0), "dictionary_penalty": (0.0,)})
    prefer = {"signal_weight": 0.25, "section_weight": 0.0, "dictionary_penalty": 0.0}
    assert fit(pairs, points, prefer)["section_weight"] == 3.0
    logo = leave_one_grammar_out(pairs, points, prefer)
    assert logo["folds"]["a.pdf"]["chosen"]["section_weight"] == 3.0  # b says so
    assert logo["folds"]["c.pdf"]["chosen"]["section_weight"] == 3.0  # a and b say so; c pays for it
    assert logo["folds"]["a.pdf"]["ndcg@10"] == 1.0 and logo["folds"]["c.pdf"]["ndcg@10"] < 1.0
    assert final_order(pairs[0], {**prefer, "section_weight": 3.0}).tolist()[0] == 3  # no model: no keeping


def test_ablation_names_one_signal_out_each_and_compares_orders_per_query() -> None:
    rankings = ablation_rankings()
    assert rankings["-section"].section_weight == 0.0 and rankings["-section"].section_top == 0
    assert rankings["-book parts"].outside_penalty == 0.0 and rankings["first order"].reranker is None
    assert rankings["-top-5 kept"].stable_set_top == 0 < rankings["default"].stable_set_top
    assert rankings["-opening"].opening_weight == 0.0 == rankings["-opening"].opening_bonus
    assert rankings["-fragment"].fragment_penalty == 0.0
    report = {"rankings": {
        "default": {"per_pair": [{"feature": "A", "file": "x", "ndcg@5": 0.5}, {"feature": "B", "file": "x",
                                                                               "ndcg@5": 1.0}]},
        "first order": {"per_pair": [{"feature": "A", "file": "x", "ndcg@5": 0.8}, {"feature": "B", "file": "x",
                                                                                   "ndcg@5": 0.9}]},
    }}
    effect = rerank_effect(report)
    assert (effect["lower"], effect["higher"]) == (1, 1) and effect["lowered"][0]["feature"] == "A"


def test_a_book_built_for_the_fit_has_parts_and_sections(tmp_path: Path) -> None:
    path = build_project(tmp_path / "mini.grammarlens")
    with open_project(path) as project:
        hits = retrieve(project, load_catalog().get("81A"), RetrievalSettings(reranker=None, final_top=1000))
    assert {"section", "outside", "dictionary", "part"} <= set(hits[0].signals)
    references = next(h for h in hits if h.paragraph.section == "References")
    body = [h.rank for h in hits if h.signals["outside"] == 0.0]
    assert references.signals["outside"] == 1.0 and references.rank > max(body)  # after the grammar proper
