"""The reranker benchmark: rank each grammar's 50 annotated paragraphs, score NDCG@5/10/20.

Input is any folder of CSVs in the format of the paper's benchmark (``Paragraph``,
``Relevance Score`` 0-5, ``BM25 Rank``); each CSV is one grammar and its rows are the candidates,
so no project is needed.  Configurations: the paper's BM25 order, our own BM25 over the 50, the
reranker alone with the paper's two instructions and two queries, the vocabulary alone, and
GrammarLens's combined ranking with and without a model.  The combination's two weights are also
evaluated leave-one-grammar-out: for each grammar they are chosen on the others.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from core.catalog.model import Feature
from core.errors import GrammarLensError
from core.progress import Progress
from core.retrieval.bm25 import BM25Index
from core.retrieval.ndcg import ndcg
from core.retrieval.ranking import embed_texts, rank_candidates
from core.retrieval.settings import RetrievalSettings
from core.retrieval.tokenize import tokenize

KS = (5, 10, 20)
DEFAULT_NAME = "grammarlens"
GRID_VALUE_WEIGHT = (1.0, 2.0, 3.0)
GRID_SIGNAL_WEIGHT = (0.1, 0.25, 0.5)


@dataclass(frozen=True)
class BenchGrammar:
    """One CSV: candidate texts in the paper's BM25 order with their relevance grades."""

    file: str
    texts: list[str]
    grades: list[float]


@dataclass
class ConfigResult:
    name: str
    per_grammar: dict[str, dict[str, float]] = field(default_factory=dict)

    def mean(self, k: int) -> float:
        return float(np.mean([g[f"ndcg@{k}"] for g in self.per_grammar.values()])) if self.per_grammar else 0.0

    def to_json(self) -> dict:
        return {
            "name": self.name,
            **{f"ndcg@{k}": round(self.mean(k), 4) for k in KS},
            "per_grammar": {f: {m: round(v, 4) for m, v in s.items()} for f, s in self.per_grammar.items()},
        }


def load_bench(folder: str | Path) -> list[BenchGrammar]:
    """Every ``*.csv`` in ``folder`` as a benchmark grammar (rows sorted by ``BM25 Rank``)."""
    root = Path(folder)
    files = sorted(root.glob("*.csv")) if root.is_dir() else []
    if not files:
        raise GrammarLensError(f"No benchmark CSVs in {root}.", "Give the folder that holds the reranker CSVs.")
    out = []
    for path in files:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        needed = {"Paragraph", "Relevance Score", "BM25 Rank"}
        if not rows or not needed <= set(rows[0]):
            raise GrammarLensError(f"{path.name} lacks the columns {sorted(needed)}.", "Check the benchmark format.")
        rows.sort(key=lambda r: int(float(r["BM25 Rank"])))
        out.append(BenchGrammar(path.name, [r["Paragraph"] for r in rows], [float(r["Relevance Score"]) for r in rows]))
    return out


def paper_queries(folder: str | Path, feature: Feature) -> dict[str, str]:
    """The paper's query strings when ``paper_queries.json`` lies beside the CSVs (or one level up).

    Falls back to the feature's own term and descriptive queries, so any folder works.
    """
    for candidate in (Path(folder) / "paper_queries.json", Path(folder).parent / "paper_queries.json"):
        if candidate.exists():
            data = json.loads(candidate.read_text(encoding="utf-8"))
            entry = data.get(f"WALS {feature.id}") or data.get(feature.id)
            if entry:
                return {"term": entry["term_only"], "wikipedia": entry["wikipedia_summary"]}
    return {"term": feature.term_query, "wikipedia": feature.descriptive_query}


def _score(grammar: BenchGrammar, order: list[int]) -> dict[str, float]:
    graded = [grammar.grades[i] for i in order]
    return {f"ndcg@{k}": ndcg(graded, k) for k in KS}


Ranker = Callable[[BenchGrammar], list[int]]


def _bm25_ranker(query: list[str]) -> Ranker:
    """Our BM25 over a grammar's 50 paragraphs, for one tokenised query."""
    return lambda g: _order(BM25Index([tokenize(t) for t in g.texts]).scores(query))


def _dense_ranker(feature: Feature, settings: RetrievalSettings, query_text: str) -> Ranker:
    """The dense ranking of a grammar's 50 paragraphs with ``settings``, for one query text."""
    return lambda g: rank_candidates(g.texts, feature, settings, dense_query_text=query_text).order


def _evaluate(name: str, grammars: list[BenchGrammar], ranker: Ranker) -> ConfigResult:
    result = ConfigResult(name)
    for g in grammars:
        result.per_grammar[g.file] = _score(g, ranker(g))
    return result


def run_rerank_bench(
    folder: str | Path,
    feature: Feature,
    model: str | None,
    *,
    device: str = "auto",
    progress: Progress | None = None,
) -> dict:
    """All configurations on the benchmark in ``folder``; returns the ``--json`` object."""
    grammars = load_bench(folder)
    queries = paper_queries(folder, feature)
    base = RetrievalSettings(device=device)
    configs: list[ConfigResult] = []
    configs.append(_evaluate("bm25 (paper order)", grammars, lambda g: list(range(len(g.texts)))))
    for qname in ("term", "wikipedia"):
        configs.append(_evaluate(f"bm25 (ours over the 50, {qname} query)", grammars,
                                 _bm25_ranker(tokenize(queries[qname]))))
    steps = 2 + (6 if model else 0)
    done = 0

    def tick(message: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress.step(done, steps, message)

    if model:
        dense = base.with_(reranker=model, ranking="dense")
        for g in grammars:  # embed each paragraph once for all configurations
            embed_texts(g.texts, dense)
        short = Path(model).name if Path(model).exists() else model
        for instruction in ("none", "default", "specific"):
            for qname in ("term", "wikipedia"):
                settings = dense.with_(instruction=instruction)
                configs.append(_evaluate(f"{short} / {instruction} instruction / {qname} query", grammars,
                                         _dense_ranker(feature, settings, queries[qname])))
                tick(configs[-1].name)
    configs.append(_evaluate(
        "vocabulary only", grammars,
        lambda g: rank_candidates(g.texts, feature, base.with_(ranking="vocabulary", reranker=None)).order,
    ))
    lexical = base.with_(reranker=None)
    configs.append(_evaluate(f"{DEFAULT_NAME} (no model)", grammars,
                             lambda g: rank_candidates(g.texts, feature, lexical).order))
    tick("lexical")
    default_settings = base.with_(reranker=model) if model else lexical
    configs.append(_evaluate(DEFAULT_NAME, grammars,
                             lambda g: rank_candidates(g.texts, feature, default_settings).order))
    configs.append(_logo(grammars, feature, default_settings))
    tick("leave-one-grammar-out")
    by_name = {c.name: c for c in configs}
    return {"default": DEFAULT_NAME, "feature": feature.id, "queries": queries,
            "configs": [c.to_json() for c in configs],
            "rerank_effect": rerank_effect(by_name[f"{DEFAULT_NAME} (no model)"], by_name[DEFAULT_NAME])}


def rerank_effect(first: ConfigResult, final: ConfigResult) -> dict:
    """Per grammar: does the order with the embedding model lower NDCG@5 below the first, lexical order?

    The app shows the first order at once and the re-ranked one after; a coder already reading a right
    first answer must not see it replaced by a worse one.
    """
    lower = [g for g in final.per_grammar if final.per_grammar[g]["ndcg@5"] < first.per_grammar[g]["ndcg@5"] - 1e-9]
    higher = [g for g in final.per_grammar if final.per_grammar[g]["ndcg@5"] > first.per_grammar[g]["ndcg@5"] + 1e-9]
    return {"grammars": len(final.per_grammar), "lower": len(lower), "higher": len(higher), "lowered": lower}


def _order(scores: np.ndarray) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def _logo(grammars: list[BenchGrammar], feature: Feature, settings: RetrievalSettings) -> ConfigResult:
    """Leave-one-grammar-out: pick (value_weight, signal_weight) on the others, score the held-out one."""
    grid = [(v, s) for v in GRID_VALUE_WEIGHT for s in GRID_SIGNAL_WEIGHT]
    table: dict[tuple[float, float], dict[str, float]] = {}
    for v, s in grid:
        tuned = settings.with_(value_weight=v, signal_weight=s)
        for g in grammars:
            table.setdefault((v, s), {})[g.file] = _score(g, rank_candidates(g.texts, feature, tuned).order)["ndcg@20"]
    result = ConfigResult(f"{DEFAULT_NAME} (weights chosen leave-one-grammar-out)")
    for g in grammars:
        best = max(grid, key=lambda p: (np.mean([table[p][o.file] for o in grammars if o is not g]), p == (2.0, 0.25)))
        chosen = settings.with_(value_weight=best[0], signal_weight=best[1])
        result.per_grammar[g.file] = _score(g, rank_candidates(g.texts, feature, chosen).order)
        result.per_grammar[g.file]["value_weight"] = best[0]
        result.per_grammar[g.file]["signal_weight"] = best[1]
    return result


def format_table(report: dict) -> str:
    """The bench as an aligned text table (one row per configuration)."""
    width = max(len(c["name"]) for c in report["configs"]) + 2
    lines = [f"{'configuration':<{width}}" + "".join(f"{'NDCG@' + str(k):>10}" for k in KS)]
    for c in report["configs"]:
        mark = " *" if c["name"] == report["default"] else ""
        lines.append(f"{c['name']:<{width}}" + "".join(f"{c[f'ndcg@{k}']:>10.4f}" for k in KS) + mark)
    lines.append("* = GrammarLens default ranking")
    effect = report.get("rerank_effect")
    if effect:
        lines.append(f"re-ranking with the model vs the first (no model) order, NDCG@5 per grammar: lower on "
                     f"{effect['lower']} of {effect['grammars']}, higher on {effect['higher']}")
    return "\n".join(lines)
