"""``bench ocr``: scanned copies of the shared grammars read against their born-digital originals.

For each grammar a run of consecutive body pages is turned into an image-only PDF (300 dpi, clean
or degraded, see :mod:`bench.ocr_scans`) and ingested with OCR; the same pages, cut from the
born-digital PDF, are ingested from their text layer.  Reported per grammar and variant:

- **word match** on prose pages (pages where most born-digital paragraph text is prose; every page
  with text when the run has none, ``scored = "all"``): the F1 of the two pages' paragraph words as
  multisets (case-folded), averaged over pages;
- **labels recovered**: pages whose printed page label read from the scan equals the label the
  original PDF gives the page (the scan carries no /PageLabels: the number must be read);
- **paragraph boundaries**: F1 of prose paragraph starts (first four words past a leading number)
  on prose pages;
- **seconds per page** (wall time of the whole ingest over the pages) and **peak memory** (the
  largest sum of resident memory of this process and its Tesseract processes, sampled every
  50 ms while the scan is ingested);
- the mean OCR confidence and the share of paragraphs marked low-confidence.

``--before PATH`` ingests the scans with another checkout's ``main.py`` (e.g. the code before
OCR was reworked) and scores its paragraphs the same way.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import pymupdf

from bench.ocr_scans import make_scan
from core.ingest.page_reading import OcrOptions
from core.ingest.pdf_open import open_pdf
from core.ingest.pipeline import ingest
from core.models import Paragraph, ParagraphKind
from core.store import create_project, open_project
from core.store.repository import list_paragraphs

_WORD = re.compile(r"\w+")
PROSE_SHARE = 0.8  # a page is a prose page when this share of its paragraph characters is prose


@dataclass(frozen=True)
class OcrBenchRow:
    grammar: str
    variant: str  # clean | degraded | before-clean | before-degraded
    pages: int
    prose_pages: int
    scored: str  # prose: word match and boundaries on prose pages; all: no prose page, every page with text
    word_match: float
    labels_recovered: float
    boundary_agreement: float
    seconds_per_page: float
    peak_memory_mb: float
    mean_confidence: float | None
    low_confidence_share: float

    def to_json(self) -> dict:
        return asdict(self)


def pick_pages(pdf: Path, count: int) -> list[int]:
    """``count`` consecutive pages from 45% into the book: body text, past the front matter."""
    with open_pdf(pdf) as doc:
        n = doc.page_count
    start = min(max(0, int(n * 0.45)), max(0, n - count))
    return list(range(start, min(n, start + count)))


def run_ocr_bench(pdf: Path, workdir: Path, *, pages: int = 8, variants: tuple[str, ...] = ("clean", "degraded"),
                  dpi: int = 300, jobs: int = 0, seed: int = 0, before: Path | None = None,
                  language: str | None = None) -> list[OcrBenchRow]:
    """Score the scanned copies of ``pdf``'s pages (see module doc); ``language`` None: as ingest detects it."""
    chosen = pick_pages(pdf, pages)
    with open_pdf(pdf) as doc:
        truth_labels = [doc.load_page(i).get_label() or str(i + 1) for i in chosen]
        born = pymupdf.open()
        born.insert_pdf(doc, from_page=chosen[0], to_page=chosen[-1])
        born_path = workdir / f"{pdf.stem}.born.pdf"
        born.save(born_path)
        born.close()
    reference = _ingest_paragraphs(born_path, workdir / f"{pdf.stem}.born.grammarlens", OcrOptions(mode="never"))
    rows = []
    for variant in variants:
        scan = make_scan(pdf, chosen, workdir / f"{pdf.stem}.{variant}.pdf", degrade=variant == "degraded", seed=seed)
        project = workdir / f"{pdf.stem}.{variant}.grammarlens"
        started = time.perf_counter()
        with PeakMemory() as memory:
            if before is not None:
                _ingest_with(before, scan, project)
                name = f"before-{variant}"
            else:
                _ingest_paragraphs(scan, project, OcrOptions(mode="force", language=language, dpi=dpi, jobs=jobs))
                name = variant
        seconds = time.perf_counter() - started
        paragraphs = _read_paragraphs(project)
        rows.append(_score(pdf.stem, name, reference, paragraphs, truth_labels, seconds, memory.peak_mb))
    return rows


def _ingest_paragraphs(pdf: Path, project_path: Path, options: OcrOptions) -> list[Paragraph]:
    project_path.unlink(missing_ok=True)
    with create_project(project_path) as project:
        ingest(project, pdf, language="Benchmark", ocr=options)
        return list_paragraphs(project)


def _ingest_with(checkout: Path, pdf: Path, project_path: Path) -> None:
    project_path.unlink(missing_ok=True)
    subprocess.run([sys.executable, str(checkout / "main.py"), "ingest", str(pdf), "--project", str(project_path),
                    "--language", "Benchmark"], check=True, capture_output=True, cwd=checkout)


def _read_paragraphs(project_path: Path) -> list[Paragraph]:
    with open_project(project_path) as project:  # opened for writing: an older schema is upgraded first
        return list_paragraphs(project)


def _score(grammar: str, variant: str, reference: list[Paragraph], scanned: list[Paragraph],
           truth_labels: list[str], seconds: float, peak_mb: float) -> OcrBenchRow:
    n = len(truth_labels)
    prose_pages = [p for p in range(1, n + 1) if _prose_page(reference, p)]
    # a run of dictionary or table pages has no prose page: then every page with text is scored
    scored = prose_pages or [p for p in range(1, n + 1) if _has_text(reference, p)]
    matches, boundaries = [], []
    for page in scored:
        ref = [p for p in reference if p.pdf_page == page]
        got = [p for p in scanned if p.pdf_page == page]
        matches.append(word_f1(_words(" ".join(p.text for p in ref)), _words(" ".join(p.text for p in got))))
        boundaries.append(_f1(Counter(_start(p) for p in ref if p.kind is ParagraphKind.PROSE),
                              Counter(_start(p) for p in got if p.kind is ParagraphKind.PROSE)))
    labels = {p.pdf_page: p.page_label for p in scanned}
    recovered = sum(1 for i, label in enumerate(truth_labels) if labels.get(i + 1) == label)
    pages_with_text = [i + 1 for i in range(n) if i + 1 in labels]
    confidences = [p.ocr_confidence for p in scanned if p.ocr_confidence is not None]
    return OcrBenchRow(
        grammar, variant, n, len(prose_pages), "prose" if prose_pages else "all",
        round(sum(matches) / len(matches), 3) if matches else 0.0,
        round(recovered / len(pages_with_text), 3) if pages_with_text else 0.0,
        round(sum(boundaries) / len(boundaries), 3) if boundaries else 0.0,
        round(seconds / n, 2), round(peak_mb, 1),
        round(sum(confidences) / len(confidences), 1) if confidences else None,
        round(sum(1 for p in scanned if p.low_confidence) / len(scanned), 3) if scanned else 0.0,
    )


class PeakMemory:
    """The largest resident memory of this process and all its descendants together, sampled."""

    def __init__(self, every_s: float = 0.05) -> None:
        self.every_s, self.peak_mb = every_s, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.peak_mb = max(self.peak_mb, sum(_rss_kb(pid) for pid in _tree(os.getpid())) / 1024)


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo += [int(c) for c in task.read_text().split()]
            except OSError:
                continue
    return out


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _has_text(paragraphs: list[Paragraph], page: int) -> bool:
    return sum(len(p.text) for p in paragraphs if p.pdf_page == page) > 500


def _prose_page(paragraphs: list[Paragraph], page: int) -> bool:
    on_page = [p for p in paragraphs if p.pdf_page == page]
    chars = sum(len(p.text) for p in on_page)
    prose = sum(len(p.text) for p in on_page if p.kind is ParagraphKind.PROSE)
    return chars > 500 and prose >= PROSE_SHARE * chars


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _start(paragraph: Paragraph) -> str:
    """A paragraph's first four words, past any leading number (a footnote mark OCR may misread).

    A footnote's number set as a superscript comes glued to its first word in a text layer
    (``2For``) and as a stray mark from OCR (``*For``, ``‘For``): both are dropped."""
    words = _words(paragraph.text)
    while words and words[0].isdigit():
        words.pop(0)
    if words:
        words[0] = re.sub(r"^\d+(?=[^\W\d_])", "", words[0])
    return " ".join(words[:4])


def word_f1(truth: list[str], got: list[str]) -> float:
    return _f1(Counter(truth), Counter(got))


def _f1(truth: Counter[str], got: Counter[str]) -> float:
    total = sum(truth.values()) + sum(got.values())
    return 2 * sum((truth & got).values()) / total if total else 1.0
