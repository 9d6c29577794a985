"""The judged retrieval benchmark: hand-graded paragraphs of the shared grammars for general features.

The paper's reranker benchmark covers WALS 81A only.  This one covers grammar x feature pairs for
features outside the paper's four (``benchmarks/judged/pairs.csv``): for each pair, the union of
the top 10 of every ranking compared here was graded blind, 0 = not useful, 1 = on the topic,
2 = decides the value (``benchmarks/judged/grades.csv``; its README says how).

Paragraphs are identified so that grades survive re-ingestion: the grammar's sha256, the 1-based
PDF page where the paragraph starts and a hash of its whitespace-normalised text.  A paragraph
that ingestion now cuts differently has a new key; it counts as grade 0 and is reported as
*ungraded*, so a stale pool shows in the figures instead of silently lowering them.  A paragraph
whose page attribution moved but whose text did not keeps its grade, and so does one whose text
changed only cosmetically (a hyphen undone, a ligature expanded: same letters and digits).

Metrics, per pair and averaged over pairs:

* NDCG@10 with linear gains (the grades), the ideal being the pair's graded pool sorted by
  grade (core.retrieval.ndcg's DCG); pairs whose pool holds no grade above 0 are left out of
  the NDCG mean and counted.
* decisive@5: whether a grade-2 paragraph is among the top 5 (pairs without any grade-2
  paragraph count as misses for every ranking).
"""

from __future__ import annotations

import csv
import hashlib
import random
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from bench.paths import BENCHMARKS, BUILD, REPO, SHARED_GRAMMARS
from core.catalog import load_catalog
from core.errors import GrammarLensError
from core.models import Paragraph
from core.progress import Progress
from core.retrieval.ndcg import dcg
from core.retrieval.settings import RetrievalSettings

K = 10
DECISIVE_K = 5
EXCERPT_CHARS = 160
DEFAULT_DATA = BENCHMARKS / "judged"
DEFAULT_GRAMMARS = SHARED_GRAMMARS
DEFAULT_PROJECTS = BUILD / "judged_projects"
# What of the default ranking was chosen while looking at these grades (see bench.judged_logo):
# its figures here are optimistic, and `bench judged --logo` reports them leave-one-grammar-out.
TUNED_ON_GRADES = (
    "the default ranking's vocabulary candidate widening and BM25/embedding signal weight were chosen "
    "looking at these grades; see `bench judged --logo` for leave-one-grammar-out figures"
)
GRADE_COLUMNS = ("feature", "file", "sha256", "pdf_page", "text_hash", "loose_hash", "grade", "page_label", "excerpt")


def rankings() -> dict[str, RetrievalSettings]:
    """The rankings compared: the app's default, BM25 alone (the paper's baseline), and the vocabulary alone.

    The default and vocabulary-only rankings order the app's candidates (the question's BM25 top 50,
    widened by the feature's vocabulary); BM25 alone is the question's BM25 order, with no widening.
    BM25 and vocabulary-only need no model.
    """
    default = RetrievalSettings()
    no_widening = {name: 0 for name in ("vocabulary_query_top", "vocabulary_top") if hasattr(default, name)}
    return {
        "default": default,
        "bm25": default.with_(ranking="bm25", reranker=None, **no_widening),
        "vocabulary": default.with_(ranking="vocabulary", reranker=None),
    }


def text_hash(text: str) -> str:
    """A short hash of the paragraph text with all whitespace runs folded to one space."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def loose_hash(text: str) -> str:
    """A coarser hash that survives cosmetic ingestion changes: letters and digits only, case-folded.

    Undoing or keeping an end-of-line hyphen, expanding a ligature, moving a footnote marker or a
    space does not change it; a paragraph cut at another place does.
    """
    folded = "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())
    return hashlib.sha1(folded.encode("utf-8")).hexdigest()[:16]


def excerpt(text: str, chars: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[: chars - 1] + "…"


@dataclass(frozen=True)
class Pair:
    """One query of the benchmark: a feature asked of one grammar."""

    feature: str
    file: str
    domain: str = ""


@dataclass(frozen=True)
class GradeKey:
    """How a graded paragraph is found again after a re-ingest."""

    feature: str
    sha256: str
    pdf_page: int
    text_hash: str


@dataclass
class Grades:
    """All grades, with fallbacks that ignore the page (text unchanged, page moved) and cosmetic text changes."""

    exact: dict[GradeKey, int] = field(default_factory=dict)
    by_text: dict[tuple[str, str, str], int] = field(default_factory=dict)
    by_loose: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def get(self, key: GradeKey, loose: str = "") -> int | None:
        if key in self.exact:
            return self.exact[key]
        found = self.by_text.get((key.feature, key.sha256, key.text_hash))
        if found is None and loose:
            found = self.by_loose.get((key.feature, key.sha256, loose))
        return found

    def pool(self, feature: str, sha256: str) -> list[int]:
        """Every grade given for this feature in this grammar (the pair's judged pool)."""
        return [g for k, g in self.exact.items() if k.feature == feature and k.sha256 == sha256]


def load_pairs(data: Path) -> list[Pair]:
    path = Path(data) / "pairs.csv"
    if not path.exists():
        raise GrammarLensError(f"No pairs.csv in {data}.",
                               "Give the folder of the judged benchmark (benchmarks/judged).")
    with open(path, newline="", encoding="utf-8") as fh:
        return [Pair(r["feature"], r["file"], r.get("domain", "")) for r in csv.DictReader(fh)]


def load_grades(data: Path) -> Grades:
    grades = Grades()
    path = Path(data) / "grades.csv"
    if not path.exists():
        return grades
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            grade = int(row["grade"])
            if grade not in (0, 1, 2):
                raise GrammarLensError(f"Grade {grade} in {path} is not 0, 1 or 2.", "Fix the grades file.")
            key = GradeKey(row["feature"], row["sha256"], int(row["pdf_page"]), row["text_hash"])
            grades.exact[key] = grade
            grades.by_text.setdefault((key.feature, key.sha256, key.text_hash), grade)
            if row.get("loose_hash"):
                grades.by_loose.setdefault((key.feature, key.sha256, row["loose_hash"]), grade)
    return grades


def grammar_rows(grammars: Path) -> dict[str, dict[str, str]]:
    """grammars.csv rows by file name."""
    path = Path(grammars) / "grammars.csv"
    if not path.exists():
        raise GrammarLensError(f"No grammars.csv in {grammars}.",
                               "Give the shared grammars folder (../shared/grammars).")
    with open(path, newline="", encoding="utf-8") as fh:
        return {r["file"]: r for r in csv.DictReader(fh)}


def ingest_fingerprint() -> str:
    """A hash of the ingestion code: cached projects are rebuilt when ingestion changes."""
    digest = hashlib.sha1()
    for path in sorted((REPO / "core" / "ingest").glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def grammar_project(pdf: Path, projects: Path, progress: Progress | None = None) -> Path:
    """A project holding ``pdf`` alone, ingested once per version of the ingestion code."""
    from core.ingest import ingest
    from core.store import open_project

    projects.mkdir(parents=True, exist_ok=True)
    path = projects / f"{pdf.stem}.{ingest_fingerprint()}.grammarlens"
    stale = re.compile(re.escape(pdf.stem) + r"\.[0-9a-f]{10}\.grammarlens(-wal|-shm)?")
    for old in projects.iterdir():  # projects made by older ingestion code are never read again
        if stale.fullmatch(old.name) and not old.name.startswith(path.name):
            old.unlink(missing_ok=True)
    with open_project(path, create=True) as project:
        ingest(project, pdf, progress=progress)
    return path


@dataclass
class PairResult:
    """One ranking's top ``K`` for one pair, with grades (None = ungraded)."""

    pair: Pair
    sha256: str
    top: list[Paragraph]
    grades: list[int | None]
    pool: list[int]
    parts: list[str] = field(default_factory=list)  # each top paragraph's part of the book (core.retrieval.book_parts)

    @property
    def gains(self) -> list[int]:
        return [g or 0 for g in self.grades]

    def ndcg(self) -> float | None:
        return judged_ndcg(self.gains, self.pool, K)

    def decisive(self) -> bool:
        return 2 in self.gains[:DECISIVE_K]

    def ungraded(self) -> int:
        return sum(g is None for g in self.grades)

    def outside(self) -> int:
        """Front- or back-matter paragraphs (acknowledgements, references, index...) in the top 5."""
        return sum(part in ("front", "back") for part in self.parts[:DECISIVE_K])

    def ndcg5(self) -> float | None:
        return judged_ndcg(self.gains[:DECISIVE_K], self.pool, DECISIVE_K)


def judged_ndcg(ranked_gains: Sequence[float], pool_gains: Iterable[float], k: int = K) -> float | None:
    """NDCG@k against the whole judged pool (not just what this ranking found); None without gains."""
    ideal = dcg(sorted(pool_gains, reverse=True), k)
    return dcg(ranked_gains, k) / ideal if ideal > 0 else None


def rank_pair(
    project_path: Path, pair: Pair, sha256: str, grades: Grades, settings: dict[str, RetrievalSettings],
) -> dict[str, PairResult]:
    """Each ranking's top ``K`` for one pair, mapped to the grades."""
    from core.retrieval.pipeline import retrieve
    from core.store import open_project

    feature = load_catalog().get(pair.feature)
    out = {}
    with open_project(project_path) as project:
        for name, s in settings.items():
            hits = retrieve(project, feature, s.with_(final_top=max(K, s.final_top)))[:K]
            top = [h.paragraph for h in hits]
            marks = [
                grades.get(GradeKey(feature.id, sha256, p.pdf_page, text_hash(p.text)), loose_hash(p.text)) for p in top
            ]
            out[name] = PairResult(pair, sha256, top, marks, grades.pool(feature.id, sha256),
                                   [h.part.value for h in hits])
    return out


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def _summary(results: list[PairResult]) -> dict:
    top_total = sum(len(r.top) for r in results)
    return {
        "pairs": len(results),
        "ndcg@10": _round(_mean(r.ndcg() for r in results)),
        "decisive@5": _round(_mean(float(r.decisive()) for r in results)),
        # the same share among the pairs whose pool holds a deciding paragraph at all
        "decisive@5_answerable": _round(_mean(float(r.decisive()) for r in results if 2 in r.pool)),
        "ungraded@10": _round(sum(r.ungraded() for r in results) / top_total if top_total else 0.0),
        # the same as a count: paragraphs of the top 10s that count as 0 only because nobody graded them
        "ungraded_top10": sum(r.ungraded() for r in results),
        "top10": top_total,
        # how many front- or back-matter paragraphs all the pairs' top 5s hold together (target 0)
        "outside@5": sum(r.outside() for r in results),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def run_judged_bench(
    data: Path = DEFAULT_DATA,
    grammars: Path = DEFAULT_GRAMMARS,
    projects: Path = DEFAULT_PROJECTS,
    *,
    features: Sequence[str] = (),
    files: Sequence[str] = (),
    settings: dict[str, RetrievalSettings] | None = None,
    progress: Progress | None = None,
) -> dict:
    """Run every ranking on every pair (optionally only some features / grammar files) and score it.

    Returns a JSON-ready report; ``report["unjudged"]`` lists the ungraded top-10 paragraphs of
    all rankings together, shuffled per pair, so a pool can be topped up blind.
    """
    progress = progress or Progress()
    settings = settings or rankings()
    catalog = load_catalog()
    wanted_features = {catalog.get(f).id for f in features}
    pairs = [
        p for p in load_pairs(data)
        if (not wanted_features or catalog.get(p.feature).id in wanted_features) and (not files or p.file in files)
    ]
    if not pairs:
        raise GrammarLensError("No benchmark pair matches the filters.",
                               "Check --feature / --grammar against pairs.csv.")
    rows = grammar_rows(grammars)
    grades = load_grades(data)
    by_ranking: dict[str, list[PairResult]] = {name: [] for name in settings}
    project_paths: dict[str, Path] = {}
    for step, pair in enumerate(pairs):
        progress.step(step, len(pairs), f"{pair.feature} {pair.file}")
        if pair.file not in rows:
            raise GrammarLensError(f"{pair.file} is not in {grammars}/grammars.csv.", "Check pairs.csv.")
        if pair.file not in project_paths:
            project_paths[pair.file] = grammar_project(Path(grammars) / pair.file, Path(projects))
        results = rank_pair(project_paths[pair.file], pair, rows[pair.file]["sha256"], grades, settings)
        for name, result in results.items():
            by_ranking[name].append(result)
    progress.step(len(pairs), len(pairs), "done")
    return _report(pairs, by_ranking, grades)


def _report(pairs: list[Pair], by_ranking: dict[str, list[PairResult]], grades: Grades) -> dict:
    first = next(iter(by_ranking.values()))
    pool_sizes = [len(r.pool) for r in first]
    report: dict = {
        "pairs": len(pairs),
        "features": len({p.feature for p in pairs}),
        "grammars": len({p.file for p in pairs}),
        "k": K,
        "decisive_k": DECISIVE_K,
        "pool": {
            "graded": sum(pool_sizes),
            "mean_per_pair": _round(sum(pool_sizes) / len(pool_sizes)) if pool_sizes else 0,
            "min_per_pair": min(pool_sizes, default=0),
            "max_per_pair": max(pool_sizes, default=0),
            "grade_counts": {str(g): sum(r.pool.count(g) for r in first) for g in (0, 1, 2)},
            "pairs_without_grade_2": sum(2 not in r.pool for r in first),
            "pairs_without_gain": sum(not any(r.pool) for r in first),
        },
        "tuned_on_grades": TUNED_ON_GRADES,
        "rankings": {},
        "unjudged": _unjudged(by_ranking),
    }
    for name, results in by_ranking.items():
        per_feature: dict[str, dict] = {}
        for feature in dict.fromkeys(r.pair.feature for r in results):
            per_feature[feature] = _summary([r for r in results if r.pair.feature == feature])
        per_grammar = {file: _summary([r for r in results if r.pair.file == file])
                       for file in dict.fromkeys(r.pair.file for r in results)}
        report["rankings"][name] = {
            **_summary(results),
            "per_feature": per_feature,
            "per_grammar": per_grammar,
            "per_pair": [
                {"feature": r.pair.feature, "file": r.pair.file, "ndcg@10": _round(r.ndcg()),
                 "ndcg@5": _round(r.ndcg5()), "outside@5": r.outside(),
                 "decisive@5": r.decisive(), "ungraded": r.ungraded(), "grades": r.grades, "pool": len(r.pool)}
                for r in results
            ],
        }
    return report


def _unjudged(by_ranking: dict[str, list[PairResult]]) -> list[dict]:
    """Ungraded top-10 paragraphs of all rankings, shuffled per pair with nothing said about who found them."""
    out = []
    n_pairs = len(next(iter(by_ranking.values())))
    for i in range(n_pairs):
        seen: dict[tuple[int, str], dict] = {}
        for results in by_ranking.values():
            r = results[i]
            for paragraph, grade in zip(r.top, r.grades, strict=True):
                key = (paragraph.pdf_page, text_hash(paragraph.text))
                if grade is None and key not in seen:
                    seen[key] = {
                        "feature": r.pair.feature, "file": r.pair.file, "sha256": r.sha256,
                        "pdf_page": paragraph.pdf_page, "text_hash": key[1], "loose_hash": loose_hash(paragraph.text),
                        "page_label": paragraph.page_label,
                        "section": paragraph.section, "kind": paragraph.kind.value, "text": paragraph.text,
                    }
        entries = list(seen.values())
        random.Random(f"{i}:{len(entries)}").shuffle(entries)
        out.extend(entries)
    return out
