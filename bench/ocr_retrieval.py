"""``bench ocr --retrieval``: the judged retrieval benchmark on a scanned copy of a whole grammar.

A judged grammar (``benchmarks/judged``) is rasterised page by page at 300 dpi into an image-only
PDF (no text layer, no page labels: :func:`bench.ocr_scans.make_scan`), ingested with OCR, and each
judged pair is ranked on it with the same rankings and the same NDCG@10 as ``bench judged``.

The grades belong to the born-digital copy's paragraphs, so each paragraph the scanned copy puts in
a top 10 is **mapped** onto a born-digital paragraph: among the born-digital paragraphs that start
on the same PDF page or the page before or after it (a paragraph running over a page break starts
on either side of it), the one sharing the most words with it (case-folded ``\\w+`` tokens counted
as multisets).  The mapping holds when the shared words are at least half of either paragraph's
words (OCR split a paragraph: each part shares all its words with it; OCR merged two: the larger
one holds half of the merged text); then the scanned paragraph takes that born-digital
paragraph's grade (found as ``bench judged`` finds it: page and text hash, else text hash, else the
loose hash).  When the words cannot tell (a dictionary entry or an example in tone-marked or IPA
forms that OCR misreads), the born-digital paragraph covering the same place on the page, at least
half of either paragraph's area, is taken.  A born-digital paragraph is credited once per ranking: a
second scanned piece of it further down the same top 10 counts 0, so splitting never earns more than
the original.  Unmapped paragraphs count 0 and are reported (``unmapped@10``), beside the paragraphs that mapped onto an
ungraded one (``ungraded@10``).  The ideal DCG is the born-digital pair's graded pool, as in
``bench judged``, so both copies are scored against the same ideal.

OCR is slow on a shared 2-core machine (several minutes for a 228-page book), so the scan and
every page Tesseract read are kept outside the repository (``--cache``, default
``~/.cache/grammarlens-bench/ocr-retrieval``): the scan PDF, and an *OCR store* project holding only
``ocr_pages``.  A run copies the stored pages into a fresh project before ingesting, so only pages
never read are OCR'd, and a change of the ingestion code re-segments the stored reading in seconds.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench.judged import (
    DEFAULT_DATA,
    DEFAULT_GRAMMARS,
    DEFAULT_PROJECTS,
    GradeKey,
    Grades,
    K,
    Pair,
    grammar_project,
    grammar_rows,
    ingest_fingerprint,
    judged_ndcg,
    load_grades,
    load_pairs,
    loose_hash,
    rankings,
    text_hash,
)
from bench.ocr_scans import make_scan
from core.catalog import load_catalog
from core.ingest.page_reading import OcrOptions
from core.ingest.pdf_open import open_pdf
from core.models import Paragraph, Rect
from core.progress import Progress
from core.retrieval.settings import RetrievalSettings
from core.store import open_project
from core.store.ocr_pages import load_ocr_pages, save_ocr_page
from core.store.repository import list_paragraphs

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "grammarlens-bench" / "ocr-retrieval"
TARGET_GAP = 0.03  # the scanned copy's NDCG@10 within this of the born-digital copy's
MAP_SHARE = 0.5  # shared words / words of either paragraph for a scanned paragraph to take a grade
_WORD = re.compile(r"\w+")


@dataclass
class RankedCopy:
    """One ranking of one pair on one copy: its top 10's gains and what could not be graded."""

    gains: list[int]
    ungraded: int
    unmapped: int


class BornIndex:
    """The born-digital paragraphs by start page, with their words, to map scanned paragraphs onto."""

    def __init__(self, paragraphs: list[Paragraph]) -> None:
        self.by_page: dict[int, list[tuple[Paragraph, Counter[str]]]] = {}
        for p in paragraphs:
            self.by_page.setdefault(p.pdf_page, []).append((p, words(p.text)))

    def match(self, scanned: Paragraph) -> Paragraph | None:
        """The born-digital paragraph ``scanned`` is (mostly) a reading of, or None (see module doc)."""
        mine = words(scanned.text)
        size = sum(mine.values())
        best, best_shared, best_size = None, 0, 0
        for page in (scanned.pdf_page, scanned.pdf_page - 1, scanned.pdf_page + 1):
            for paragraph, theirs in self.by_page.get(page, []):
                shared = sum((mine & theirs).values())
                if shared > best_shared:
                    best, best_shared, best_size = paragraph, shared, sum(theirs.values())
        if best is None or best_shared < MAP_SHARE * min(size, best_size):
            return self.by_place(scanned)
        return best

    def by_place(self, scanned: Paragraph) -> Paragraph | None:
        """The born-digital paragraph covering the same place on the page, when the words could not tell:
        a dictionary entry or an example in tone-marked or IPA forms that OCR misreads (``tɪŋ [tɪŋ] art.``
        read as ``try [try] art.``).  It must cover at least half of either paragraph's area."""
        best, best_area = None, 0.0
        mine = sum(_area(r) for r in scanned.rects)
        for page in (scanned.pdf_page, scanned.pdf_page - 1, scanned.pdf_page + 1):
            for paragraph, _ in self.by_page.get(page, []):
                shared = sum(_overlap(a, b) for a in scanned.rects for b in paragraph.rects)
                if shared > best_area:
                    best, best_area = paragraph, shared
        if best is None or best_area < MAP_SHARE * min(mine, sum(_area(r) for r in best.rects)):
            return None
        return best


def _area(rect: Rect) -> float:
    return max(0.0, rect.x1 - rect.x0) * max(0.0, rect.y1 - rect.y0)


def _overlap(a: Rect, b: Rect) -> float:
    if a.pdf_page != b.pdf_page:
        return 0.0
    return max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0)) * max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))


def words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.casefold()))


def grade_of(grades: Grades, feature: str, sha256: str, paragraph: Paragraph) -> int | None:
    """A born-digital paragraph's grade, found as ``bench judged`` finds it (None: ungraded)."""
    key = GradeKey(feature, sha256, paragraph.pdf_page, text_hash(paragraph.text))
    return grades.get(key, loose_hash(paragraph.text))


def score_top(top: list[Paragraph], feature: str, sha256: str, grades: Grades, index: BornIndex | None) -> RankedCopy:
    """Gains of a top 10; ``index`` None: the paragraphs are the born-digital ones themselves."""
    gains, ungraded, unmapped, credited = [], 0, 0, set()
    for paragraph in top:
        born = paragraph if index is None else index.match(paragraph)
        if born is None:
            unmapped += 1
            gains.append(0)
            continue
        if born.id in credited:  # a second piece of the same paragraph earns nothing
            gains.append(0)
            continue
        credited.add(born.id)
        grade = grade_of(grades, feature, sha256, born)
        ungraded += grade is None
        gains.append(grade or 0)
    return RankedCopy(gains, ungraded, unmapped)


def scanned_project(pdf: Path, cache: Path, *, language: str | None = None, dpi: int = 300, jobs: int = 0,
                    progress: Progress | None = None) -> tuple[Path, dict]:
    """A project of ``pdf``'s 300-dpi image-only copy, OCR'd, made once per version of the ingestion code.

    Returns the project and facts of the run (pages, pages OCR'd now, seconds, the model that read them).
    """
    cache.mkdir(parents=True, exist_ok=True)
    scan = cache / f"{pdf.stem}.scan300.pdf"
    started = time.perf_counter()
    if not scan.exists():
        with open_pdf(pdf) as doc:
            count = doc.page_count
        partial = cache / f"{pdf.stem}.scan300.part.pdf"
        make_scan(pdf, list(range(count)), partial)
        partial.replace(scan)  # a scan cut short by a kill is never taken for a whole one
    scan_s = time.perf_counter() - started
    model = language or "auto"  # auto: as ingest detects it (with the described language's script)
    project_path = cache / f"{pdf.stem}.scan.{model}.{dpi}.{ingest_fingerprint()}.grammarlens"
    store_path = cache / f"{pdf.stem}.ocrstore.{model}.grammarlens"
    facts: dict = {"scan_seconds": round(scan_s, 1)}
    with open_project(project_path, create=True) as project:
        if project.conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 0:
            from core.ingest import ingest
            from core.ingest.pdf_open import sha256_of

            digest = sha256_of(scan)
            with open_project(store_path, create=True) as store:
                stored = load_ocr_pages(store, digest)
            have = load_ocr_pages(project, digest)
            for page in stored.values():
                if page.pdf_page not in have:
                    save_ocr_page(project, digest, page)
            began = time.perf_counter()
            ingest(project, scan, language="Benchmark", progress=progress,
                   ocr=OcrOptions(mode="force", language=language, dpi=dpi, jobs=jobs))
            facts["ingest_seconds"] = round(time.perf_counter() - began, 1)
            read = load_ocr_pages(project, digest)
            with open_project(store_path, create=True) as store:
                for number, page in read.items():
                    if number not in stored:
                        save_ocr_page(store, digest, page)
            facts["pages_ocr_now"] = len(read) - len(stored)
        facts["ocr_language"] = project.conn.execute("SELECT ocr_language FROM documents").fetchone()[0]
        rows = project.conn.execute("SELECT SUM(seconds), COUNT(*) FROM ocr_pages").fetchone()
        facts["pages"] = rows[1]
        facts["tesseract_seconds_per_page"] = round(rows[0] / rows[1], 2) if rows[1] else None
    _drop_stale(cache, f"{pdf.stem}.scan.{model}.{dpi}", project_path)
    return project_path, facts


def _drop_stale(cache: Path, prefix: str, keep: Path) -> None:
    """Projects made by older ingestion code are never read again (their OCR pages live in the store)."""
    pattern = re.compile(re.escape(prefix) + r"\.[0-9a-f]{10}\.grammarlens(-wal|-shm|\.backups)?")
    for old in cache.iterdir():
        if pattern.fullmatch(old.name) and not old.name.startswith(keep.name):
            if old.is_dir():
                shutil.rmtree(old)
            else:
                old.unlink(missing_ok=True)


def _rank(project_path: Path, pair: Pair, settings: dict[str, RetrievalSettings]) -> dict[str, list[Paragraph]]:
    from core.retrieval.pipeline import retrieve

    feature = load_catalog().get(pair.feature)
    with open_project(project_path) as project:
        return {name: [h.paragraph for h in retrieve(project, feature, s.with_(final_top=max(K, s.final_top)))[:K]]
                for name, s in settings.items()}


def run_ocr_retrieval(files: Sequence[str] = (), *, data: Path = DEFAULT_DATA, grammars: Path = DEFAULT_GRAMMARS,
                      projects: Path = DEFAULT_PROJECTS, cache: Path = DEFAULT_CACHE, ranking_names: Sequence[str] = (),
                      language: str | None = None, jobs: int = 0, progress: Progress | None = None) -> dict:
    """NDCG@10 of the born-digital and the scanned copy of each judged grammar in ``files``.

    Without ``files``: the judged grammar with the fewest pages (the cheapest to OCR).
    """
    progress = progress or Progress()
    rows = grammar_rows(grammars)
    pairs = load_pairs(data)
    judged = sorted({p.file for p in pairs}, key=lambda f: int(rows[f]["pdf_pages"]))
    chosen = list(files) or judged[:1]
    unknown = [f for f in chosen if f not in judged]
    if unknown:
        from core.errors import GrammarLensError

        raise GrammarLensError(f"Not a judged grammar: {', '.join(unknown)}.",
                               f"Choose among {', '.join(judged)} (benchmarks/judged/pairs.csv).")
    every = rankings()
    settings = {n: every[n] for n in (ranking_names or ("default", "bm25"))}
    grades = load_grades(data)
    report: dict = {"k": K, "target_gap": TARGET_GAP, "rankings": list(settings), "ocr_language": language or "auto",
                    "grammars": []}
    for file in chosen:
        pdf = Path(grammars) / file
        sha256 = rows[file]["sha256"]
        born_path = grammar_project(pdf, Path(projects))
        scan_path, facts = scanned_project(pdf, Path(cache), language=language, jobs=jobs, progress=progress)
        with open_project(born_path) as project:
            index = BornIndex(list_paragraphs(project))
        with open_project(scan_path) as project:
            facts["paragraphs_scanned"] = len(list_paragraphs(project))
        facts["paragraphs_born"] = sum(len(v) for v in index.by_page.values())
        per_pair = []
        for pair in (p for p in pairs if p.file == file):
            pool = grades.pool(load_catalog().get(pair.feature).id, sha256)
            feature_id = load_catalog().get(pair.feature).id
            born_top, scan_top = _rank(born_path, pair, settings), _rank(scan_path, pair, settings)
            entry: dict = {"feature": pair.feature}
            for name in settings:
                born = score_top(born_top[name], feature_id, sha256, grades, None)
                scanned = score_top(scan_top[name], feature_id, sha256, grades, index)
                entry[name] = {"born": judged_ndcg(born.gains, pool), "scanned": judged_ndcg(scanned.gains, pool),
                               "born_ungraded": born.ungraded, "scanned_ungraded": scanned.ungraded,
                               "scanned_unmapped": scanned.unmapped}
            per_pair.append(entry)
        report["grammars"].append({"file": file, "pdf_pages": int(rows[file]["pdf_pages"]), **facts,
                                   "summary": _summary(per_pair, settings), "per_pair": per_pair})
    report["summary"] = _summary([e for g in report["grammars"] for e in g["per_pair"]], settings)
    return report


def _summary(per_pair: list[dict], settings: dict[str, RetrievalSettings]) -> dict:
    out = {}
    for name in settings:
        scored = [e[name] for e in per_pair if e[name]["born"] is not None]
        born = sum(s["born"] for s in scored) / len(scored) if scored else None
        scanned = sum(s["scanned"] for s in scored) / len(scored) if scored else None
        tops = K * len(per_pair) or 1
        out[name] = {
            "pairs": len(scored),
            "ndcg@10_born": _round(born),
            "ndcg@10_scanned": _round(scanned),
            "gap": _round(None if born is None or scanned is None else born - scanned),
            "within_target": None if born is None or scanned is None else born - scanned <= TARGET_GAP,
            "ungraded@10_born": round(sum(e[name]["born_ungraded"] for e in per_pair) / tops, 3),
            "ungraded@10_scanned": round(sum(e[name]["scanned_ungraded"] for e in per_pair) / tops, 3),
            "unmapped@10_scanned": round(sum(e[name]["scanned_unmapped"] for e in per_pair) / tops, 3),
        }
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
