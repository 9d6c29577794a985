"""Each signal's contribution on the judged benchmark (``bench judged --ablation``).

The default ranking is run again with one signal taken out at a time, so its figures say what each
signal buys on these grades; "first order" is the app's provisional order (no embedding model), and
"previous default" the hand-set combination before section match and book parts existed.  For the
embedding model the per-query comparison matters as much as the mean: how often does the
re-ranked order lower NDCG@5 below the first order the coder already sees?
"""

from __future__ import annotations

from core.retrieval.settings import RetrievalSettings


def ablation_rankings(base: RetrievalSettings | None = None) -> dict[str, RetrievalSettings]:
    """The default and one variant per signal taken out (names as printed)."""
    base = base or RetrievalSettings()
    return {
        "default": base,
        "first order": base.with_(reranker=None),
        "-top-5 kept": base.with_(stable_set_top=0),  # the model may push the first order's top 5 out freely
        "-section": base.with_(section_weight=0.0, section_top=0),
        "-book parts": base.with_(outside_penalty=0.0, dictionary_penalty=0.0),
        "-agreement": base.with_(signal_weight=0.0),
        "-opening": base.with_(opening_weight=0.0, opening_bonus=0.0),  # a section's first paragraph gains nothing
        "-fragment": base.with_(fragment_penalty=0.0),  # fragments lose nothing
        "-widening": base.with_(vocabulary_query_top=0, vocabulary_top=0, section_top=0),
        "previous": base.with_(section_weight=0.0, section_top=0, outside_penalty=0.0, dictionary_penalty=0.0,
                               value_weight=2.0, signal_weight=0.25, opening_weight=0.0, fragment_penalty=0.0,
                               opening_bonus=0.0, stable_set_top=0),
    }


def rerank_effect(report: dict, final: str = "default", first: str = "first order") -> dict:
    """Per query: does the final (re-ranked) order lower or raise NDCG@5 against the first order?"""
    rows_final = report["rankings"][final]["per_pair"]
    rows_first = report["rankings"][first]["per_pair"]
    lower, higher, lowered = 0, 0, []
    for a, b in zip(rows_first, rows_final, strict=True):
        before, after = a["ndcg@5"] or 0.0, b["ndcg@5"] or 0.0
        if after < before - 1e-9:
            lower += 1
            lowered.append({"feature": b["feature"], "file": b["file"], "first": before, "final": after})
        elif after > before + 1e-9:
            higher += 1
    return {"pairs": len(rows_final), "lower": lower, "higher": higher, "lowered": lowered}


def format_rerank_effect(effect: dict) -> str:
    lines = [f"re-ranking with the embedding model vs the first order, NDCG@5 per query: lower on "
             f"{effect['lower']} of {effect['pairs']}, higher on {effect['higher']}"]
    for row in effect["lowered"]:
        lines.append(f"  lower: {row['feature']:<6} {row['file']:<28} {row['first']:.3f} -> {row['final']:.3f}")
    return "\n".join(lines)
