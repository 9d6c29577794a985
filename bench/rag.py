"""Replaying the paper's RAG benchmark (``bench rag``) against any OpenAI-compatible server.

For each grammar of ``../shared/bench/rag`` the prompt is built from the chunks the paper's
BM25 fed to GPT-4o: either in the paper's order (all 50, as the paper did) or re-ranked by
GrammarLens, after splitting the paper's long multi-page chunks into passages, and packed into
the evidence budget.  Answers are scored against the gold values with the paper's metrics
(Table 4) and the paper's published numbers are shown beside ours.

Gold pages in the CSVs may be printed page numbers while chunk page lists may be PDF page
indices; the page-coverage figure compares both rankings on the same (raw) numbers, so it is a
like-for-like comparison, not an absolute recall.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bench.paths import SHARED
from core.catalog.model import Feature
from core.errors import GrammarLensError
from core.llm.ask import ask
from core.llm.client import LlmClient
from core.llm.errors import LlmError
from core.llm.features import NOT_ENOUGH_INFORMATION, PAPER_NOT_MENTIONED
from core.llm.metrics import Scores, scores
from core.llm.prompts import Evidence
from core.llm.tokens import estimate_tokens
from core.retrieval.budget import DEFAULT_BUDGET_TOKENS, pack_budget
from core.retrieval.ranking import rank_texts
from core.retrieval.settings import RetrievalSettings

NO_ANSWER = "(no answer)"
PASSAGE_CHARS = 1_200
PAPER_TOP = 20
_GOLD_COLUMNS = {
    "81A": "WALS 81A: Order of Subject, Object and Verb",
    "GB107": "GB107: Can standard negation be marked by an affix, clitic or modification of the verb?",
    "116A*": "WALS 116A: Polar Questions",
}
# Folder names of the paper's benchmark (../shared/bench/rag/paragraphs/<folder>).
BENCH_FOLDERS = {"81A": "WALS_81A", "GB107": "GB_107", "116A*": "WALS_116A", "49A": "WALS_49A"}
_PAGE_COLUMNS = {"81A": "WALS 81A: Pages", "GB107": "GB107: Pages", "116A*": "WALS 116A: Pages", "49A": "Reference"}
# Gold strategy names of the CSV that are not among the paper's seven labels.
_POLAR_GOLD_ALIASES = {"Second position question particle": "Clause-medial question particle"}

# Table 4 of the paper (GPT-4o): (micro, macro, weighted) F1 per configuration.
PAPER_TABLE4: dict[str, dict[str, tuple[float, float, float]]] = {
    "81A": {"baseline": (0.5735, 0.2699, 0.5534), "wikipedia": (0.6892, 0.7179, 0.6694),
            "wikipedia+CoT": (0.7027, 0.6097, 0.6890), "reranker": (0.7095, 0.6141, 0.6790),
            "reranker+CoT": (0.7297, 0.6139, 0.6995)},
    "GB107": {"baseline": (0.5685, 0.5639, 0.5700), "wikipedia": (0.6622, 0.5718, 0.5957),
              "wikipedia+CoT": (0.6554, 0.5731, 0.5959), "reranker": (0.6757, 0.6011, 0.6221),
              "reranker+CoT": (0.7095, 0.6546, 0.6713)},
    "49A": {"baseline": (0.3857, 0.1804, 0.3145), "wikipedia": (0.5203, 0.4711, 0.5314),
            "wikipedia+CoT": (0.5405, 0.4494, 0.5542), "reranker": (0.5541, 0.4332, 0.5605),
            "reranker+CoT": (0.5135, 0.4042, 0.5185)},
    "GB262": {"baseline": (0.7190, 0.5715, 0.7398), "wikipedia": (0.9054, 0.7977, 0.9054),
              "wikipedia+CoT": (0.9189, 0.8335, 0.9205), "reranker": (0.9459, 0.8890, 0.9470),
              "reranker+CoT": (0.9257, 0.8504, 0.9278)},
    "GB264": {"baseline": (0.6529, 0.4706, 0.6426), "wikipedia": (0.8311, 0.7638, 0.8439),
              "wikipedia+CoT": (0.8851, 0.8201, 0.8888), "reranker": (0.8378, 0.7709, 0.8496),
              "reranker+CoT": (0.8581, 0.7832, 0.8641)},
    "GB263": {"baseline": (0.5372, 0.5372, 0.5379), "wikipedia": (0.7230, 0.7173, 0.7314),
              "wikipedia+CoT": (0.7568, 0.7463, 0.7644), "reranker": (0.7027, 0.6972, 0.7116),
              "reranker+CoT": (0.7838, 0.7717, 0.7902)},
    "GB257": {"baseline": (0.4380, 0.4038, 0.3837), "wikipedia": (0.8446, 0.8392, 0.8480),
              "wikipedia+CoT": (0.8986, 0.8946, 0.9007), "reranker": (0.8378, 0.8335, 0.8415),
              "reranker+CoT": (0.8784, 0.8739, 0.8810)},
    "GB260": {"baseline": (0.9752, 0.6937, 0.9679), "wikipedia": (0.9932, 0.9427, 0.9936),
              "wikipedia+CoT": (0.9865, 0.8965, 0.9878), "reranker": (0.9865, 0.8715, 0.9865),
              "reranker+CoT": (0.9797, 0.8281, 0.9808)},
    "GB286": {"baseline": (0.7521, 0.4292, 0.6953), "wikipedia": (0.7973, 0.7075, 0.8192),
              "wikipedia+CoT": (0.8311, 0.7354, 0.8451), "reranker": (0.8243, 0.7282, 0.8396),
              "reranker+CoT": (0.8311, 0.7419, 0.8465)},
    "GB291": {"baseline": (0.9339, 0.5828, 0.9212), "wikipedia": (0.9257, 0.7407, 0.9390),
              "wikipedia+CoT": (0.9595, 0.8225, 0.9637), "reranker": (0.9662, 0.8594, 0.9704),
              "reranker+CoT": (0.9730, 0.8501, 0.9730)},
}


def paper_row(config: str, ranking: str) -> str:
    """The paper's configuration closest to ours (its BM25 used the Wikipedia-summary query)."""
    if config == "baseline":
        return "baseline"
    base = "reranker" if ranking == "ours" else "wikipedia"
    return base + ("+CoT" if config == "rag-guidelines" else "")


@dataclass
class Chunk:
    text: str
    pages: list[int]


@dataclass
class Item:
    """One grammar of the benchmark for one feature."""

    key: str
    language: str
    gold: dict[str, str]  # feature id (or sub-feature id) -> gold label
    gold_pages: set[int]
    chunks: list[Chunk]


@dataclass
class ItemResult:
    item: Item
    predicted: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 0
    evidence_tokens: int = 0
    evidence_pages: set[int] = field(default_factory=set)
    paper_top_pages: set[int] = field(default_factory=set)
    error: str | None = None


@dataclass
class BenchReport:
    feature_id: str
    config: str
    ranking: str
    model: str
    results: list[ItemResult]
    scores: dict[str, Scores]  # per (sub-)feature id
    paper_reference: dict[str, tuple[float, float, float] | None]

    def median_evidence_tokens(self) -> float:
        return statistics.median(r.evidence_tokens for r in self.results) if self.results else 0.0

    def mean_prompt_tokens(self) -> float:
        return statistics.mean(r.prompt_tokens for r in self.results) if self.results else 0.0

    def gold_page_coverage(self) -> tuple[float, float, int]:
        """Share of grammars with gold pages where one is among our evidence pages / the paper's top 20."""
        rows = [r for r in self.results if r.item.gold_pages]
        if not rows:
            return 0.0, 0.0, 0
        ours = sum(1 for r in rows if r.item.gold_pages & r.evidence_pages) / len(rows)
        paper = sum(1 for r in rows if r.item.gold_pages & r.paper_top_pages) / len(rows)
        return ours, paper, len(rows)

    def to_json(self) -> dict:
        ours, paper, n_pages = self.gold_page_coverage()
        return {
            "feature": self.feature_id, "config": self.config, "ranking": self.ranking, "model": self.model,
            "grammars": len(self.results), "errors": sum(1 for r in self.results if r.error),
            "scores": {k: vars(v) for k, v in self.scores.items()},
            "paper": {k: (dict(zip(("micro_f1", "macro_f1", "weighted_f1"), v, strict=True)) if v else None)
                      for k, v in self.paper_reference.items()},
            "paper_row": paper_row(self.config, self.ranking),
            "median_evidence_tokens": self.median_evidence_tokens(),
            "mean_prompt_tokens": self.mean_prompt_tokens(),
            "gold_page_in_evidence": ours, "gold_page_in_paper_top20": paper, "grammars_with_gold_pages": n_pages,
        }


def load_items(data_dir: Path, feature: Feature) -> list[Item]:
    """Benchmark grammars with a usable gold value, with their chunks in the paper's order."""
    folder = BENCH_FOLDERS.get(feature.id)
    if folder is None:
        raise GrammarLensError(f"The paper's RAG benchmark has no feature {feature.id}.",
                               "Use 81A, GB107, 49A or 116A*.")
    csv.field_size_limit(1 << 30)
    table = data_dir / ("annotated_benchmark_number_of_cases.csv" if feature.id == "49A" else "annotated_benchmark.csv")
    if not table.exists():
        raise GrammarLensError(f"{table} is missing.", "Point --data at the paper's bench/rag folder.")
    items = []
    with open(table, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            gold = _gold(feature, row)
            if gold is None:
                continue
            key = row["Filename"]
            path = data_dir / "paragraphs" / folder / f"{key}.csv"
            if not path.exists():
                continue
            with open(path, newline="", encoding="utf-8") as ch:
                chunks = [Chunk(r["Paragraph"], _pages_list(r["Page number"])) for r in csv.DictReader(ch)]
            items.append(Item(key, row.get("Name") or row.get("Language") or key, gold,
                              parse_pages(row.get(_PAGE_COLUMNS[feature.id], "")), chunks))
    return items


def _gold(feature: Feature, row: dict) -> dict[str, str] | None:
    raw = (row.get("Value") if feature.id == "49A" else row.get(_GOLD_COLUMNS[feature.id], "")) or ""
    raw = raw.strip()
    if not raw or raw == "N/A":
        return None
    if feature.is_multilabel:
        if raw in (PAPER_NOT_MENTIONED, "No interrogative-declarative distinction"):
            named: set[str] = set()
        else:
            named = {_POLAR_GOLD_ALIASES.get(p.strip(), p.strip()) for p in raw.split(",")}
        return {gb: "1" if label in named else "0" for gb, label in feature.parts}
    if raw == PAPER_NOT_MENTIONED:
        return {feature.id: NOT_ENOUGH_INFORMATION}
    if raw not in feature.option_words():  # gold values are worded as the paper's options
        return None
    return {feature.id: raw}


def parse_pages(text: str) -> set[int]:
    """'25, 425, 631-632 (also ...)' -> {25, 425, 631, 632}."""
    pages: set[int] = set()
    for a, b in re.findall(r"(\d+)\s*(?:[-–]\s*(\d+))?", text or ""):
        lo, hi = int(a), int(b) if b else int(a)
        if 0 <= hi - lo <= 200:
            pages.update(range(lo, hi + 1))
    return pages


def _pages_list(text: str) -> list[int]:
    try:
        return [int(p) for p in json.loads(text)]
    except (ValueError, TypeError):
        return sorted(parse_pages(text))


def split_passages(chunk: Chunk, size: int = PASSAGE_CHARS) -> list[Chunk]:
    """Cut a long multi-page chunk at line breaks into passages of about ``size`` characters.

    A passage's page is estimated from its position in the chunk (the chunk's pages are spread
    evenly over its length), which is all the paper's data allows.
    """
    lines = chunk.text.split("\n")
    total = max(1, len(chunk.text))
    out, buf, start, pos = [], [], 0, 0
    for line in lines:
        buf.append(line)
        pos += len(line) + 1
        if sum(len(b) + 1 for b in buf) >= size:
            out.append((start, pos, "\n".join(buf)))
            buf, start = [], pos
    if buf and "".join(buf).strip():
        out.append((start, pos, "\n".join(buf)))
    pages = chunk.pages or [0]
    result = []
    for s, e, text in out:
        first = pages[min(len(pages) - 1, int(s / total * len(pages)))]
        last = pages[min(len(pages) - 1, int(max(s, e - 1) / total * len(pages)))]
        result.append(Chunk(text, sorted({p for p in pages if first <= p <= last})))
    return result


def rank_ours(item: Item, feature: Feature, budget_tokens: int) -> list[Chunk]:
    """GrammarLens's ranking of the paper's chunks (cut into passages), packed into the budget."""
    passages = [p for c in item.chunks for p in split_passages(c)]
    order = rank_texts([p.text for p in passages], feature, RetrievalSettings(reranker=None))
    return pack_budget([passages[index] for index, _score in order], budget_tokens, text_of=lambda p: p.text)


def run_bench(data_dir: Path, feature: Feature, client: LlmClient, *, config: str = "rag", ranking: str = "paper",
              budget_tokens: int = DEFAULT_BUDGET_TOKENS, limit: int | None = None, progress=None) -> BenchReport:
    """Ask the model about every benchmark grammar and score the answers."""
    items = load_items(data_dir, feature)[:limit] if limit else load_items(data_dir, feature)
    if not items:
        raise GrammarLensError(f"No benchmark grammars with gold values for {feature.id} in {data_dir}.", "")

    def one(item: Item) -> ItemResult:
        chosen, evidence = item_evidence(item, feature, config, ranking, budget_tokens)
        try:
            outcome = ask(client, feature, config, item.language, evidence)
        except LlmError as exc:
            return ItemResult(item, paper_top_pages=_paper_top_pages(item), error=exc.message)
        return item_result(item, feature, chosen, outcome)

    workers = max(1, min(client.settings.max_concurrency, len(items)))
    results: list[ItemResult] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for done, res in enumerate(pool.map(one, items), start=1):
            results.append(res)
            if progress is not None:
                progress.step(done, len(items), res.item.key)
    return score_results(feature, results, config, ranking, client.settings.model)


def _paper_top_pages(item: Item) -> set[int]:
    return {p for c in item.chunks[:PAPER_TOP] for p in c.pages}


def item_evidence(item: Item, feature: Feature, config: str, ranking: str,
                  budget_tokens: int) -> tuple[list[Chunk], list[Evidence]]:
    """The chunks offered for one grammar and their prompt evidence (online and batch files alike)."""
    if config == "baseline":
        chosen: list[Chunk] = []
    elif ranking == "ours":
        chosen = rank_ours(item, feature, budget_tokens)
    else:
        chosen = item.chunks
    evidence = [Evidence(number=i + 1, rank=i + 1, text=c.text,
                         page_label=",".join(str(p) for p in c.pages[:3]) + ("..." if len(c.pages) > 3 else ""))
                for i, c in enumerate(chosen)]
    return chosen, evidence


def item_result(item: Item, feature: Feature, chosen: list[Chunk], outcome) -> ItemResult:
    """One grammar's result from an answer (an :class:`~core.llm.ask.AskOutcome`)."""
    result = ItemResult(item, paper_top_pages=_paper_top_pages(item))
    sent = outcome.evidence
    result.evidence_tokens = outcome.evidence_tokens
    result.prompt_tokens = outcome.response.prompt_tokens or estimate_tokens(outcome.prompt.text())
    result.evidence_pages = {p for c in chosen[: len(sent)] for p in c.pages}
    for v in outcome.parsed.values:  # scored in the paper's option words, as the gold values are
        result.predicted[v.feature_id] = (feature.option_of(v.code) if v.code is not None else None) or v.label
    return result


def score_results(feature: Feature, results: list[ItemResult], config: str, ranking: str, model: str) -> BenchReport:
    """Score every grammar's prediction against the gold values, beside the paper's Table 4 row."""
    targets = [gb for gb, _ in feature.parts] if feature.is_multilabel else [feature.id]
    table: dict[str, Scores] = {}
    for t in targets:
        gold = [r.item.gold[t] for r in results]
        pred = [_binary(r.predicted.get(t), feature.is_multilabel) for r in results]
        table[t] = scores(gold, pred)
    reference = {t: PAPER_TABLE4.get(t, {}).get(paper_row(config, ranking)) for t in targets}
    return BenchReport(feature.id, config, ranking, model, results, table, reference)


def _binary(label: str | None, multilabel: bool) -> str:
    if label is None:
        return NO_ANSWER
    if multilabel and label == NOT_ENOUGH_INFORMATION:
        return "0"  # the paper codes a strategy 1 only when the grammar attests it
    return label


def format_report(report: BenchReport) -> str:
    from core.catalog import load_catalog

    catalog = load_catalog()
    names = dict(catalog.get(report.feature_id).parts) if report.feature_id in catalog else {}
    row = paper_row(report.config, report.ranking)
    failed = sum(1 for r in report.results if r.error)
    lines = [f"bench rag: feature {report.feature_id}, config {report.config}, ranking {report.ranking}, "
             f"model {report.model}, {len(report.results)} grammars"
             + (f", {failed} failed" if failed else ""),
             f"{'feature':<34} {'n':>3}  {'micro':>6} {'macro':>6} {'weighted':>8} {'MCC':>6}   "
             f"paper ({row}) micro/macro/weighted"]
    for fid, s in report.scores.items():
        ref = report.paper_reference.get(fid)
        ref_text = " / ".join(f"{x:.4f}" for x in ref) if ref else "n/a"
        label = f"{fid} {names.get(fid, '')}".strip()
        lines.append(f"{label:<34} {s.n:>3}  {s.micro_f1:6.4f} {s.macro_f1:6.4f} {s.weighted_f1:8.4f} "
                     f"{s.mcc:6.3f}   {ref_text}")
    ours, paper, n = report.gold_page_coverage()
    lines.append(f"tokens per prompt: mean {report.mean_prompt_tokens():,.0f}; median evidence tokens "
                 f"{report.median_evidence_tokens():,.0f}")
    if n:
        lines.append(f"gold page among evidence pages: ours {ours:.1%} vs paper's top {PAPER_TOP} {paper:.1%} "
                     f"({n} grammars with gold pages; raw page numbers, see --help)")
    errors = [r for r in report.results if r.error]
    for r in errors[:5]:
        lines.append(f"  failed: {r.item.key}: {r.error}")
    return "\n".join(lines)


def default_data_dir() -> Path:
    return SHARED / "bench" / "rag"


def print_report(report: BenchReport, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(format_report(report))
    sys.stdout.flush()
