"""Recognise many pages at once: one Tesseract process per core, each page handed on as it finishes.

The loop stays in the calling thread and owns every process: it renders the next page (PyMuPDF
is not thread-safe, so rendering never leaves this thread), starts Tesseract on it, and hands
each finished page to ``on_page`` at once, which stores it, so a cancel or a ``kill -9`` loses
only the pages still being read.  A page Tesseract fails on (a crash, a timeout, a broken
image) comes back with its error and the others go on.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pymupdf

from core.errors import PdfError
from core.ingest.hocr import parse_hocr
from core.ingest.layout import Fragment
from core.ingest.tesseract import start_page
from core.progress import Progress

EDGE_BAND = 0.12  # share of the page height read again at the top and at the bottom (page numbers)
EDGE_GAP_PX = 40
MAX_PIXELS = 60_000_000  # a huge page (a fold-out map) is read at a lower resolution, never out of memory
PAGE_TIMEOUT_S = 600.0  # one page longer than this is taken for a hung Tesseract


@dataclass(frozen=True)
class PageOcr:
    """One page's recognition: its lines, or the reason it could not be read."""

    index: int  # 0-based PDF page
    fragments: list[Fragment]
    confidence: float | None
    seconds: float
    dpi: int
    error: str = ""


@dataclass
class _Running:
    process: subprocess.Popen
    started: float
    out_base: Path
    dpi: int
    page_height: float  # points
    main: PageOcr | None = None  # set once the whole page is read and its edges are being read
    band: tuple[float, float, float] = (0.0, 0.0, 0.0)  # top band height, bottom band start, band height (pt)


@dataclass
class OcrRate:
    """Pages per second and time left, from the pages read in this run (resumed pages cost nothing)."""

    total: int
    done: int = 0
    started: float = field(default_factory=time.monotonic)
    read_now: int = 0

    def message(self, language: str, dpi: int) -> str:
        elapsed = time.monotonic() - self.started
        rate = self.read_now / elapsed if elapsed > 0 and self.read_now else 0.0
        if not rate:
            return f"OCR starting ({language}, {dpi} dpi)"
        left = (self.total - self.done) / rate
        # time left first: a narrow status bar elides the end
        return f"{format_duration(left)} left, {rate:.2f} pages/s (OCR {language}, {dpi} dpi)"


def format_duration(seconds: float) -> str:
    seconds = max(0, int(math.ceil(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def page_dpi(page: pymupdf.Page, dpi: int) -> int:
    """``dpi``, lowered for a page so large that its image would pass :data:`MAX_PIXELS`."""
    pixels = page.rect.width * page.rect.height * (dpi / 72.0) ** 2
    if pixels <= MAX_PIXELS:
        return dpi
    return max(72, int(dpi * math.sqrt(MAX_PIXELS / pixels)))


def run_ocr(
    doc: pymupdf.Document,
    indexes: list[int],
    *,
    language: str,
    dpi: int,
    jobs: int,
    on_page: Callable[[PageOcr], None],
    progress: Progress,
    rate: OcrRate,
) -> None:
    """Recognise the pages ``indexes`` of ``doc``, ``jobs`` at a time, calling ``on_page`` for each."""
    pending = list(indexes)
    running: dict[int, _Running] = {}
    tmp = Path(tempfile.mkdtemp(prefix="grammarlens-ocr-"))
    try:
        while pending or running:
            while pending and len(running) < jobs:
                index = pending.pop(0)
                running[index] = _start(doc, index, tmp, language, dpi)
            finished = [i for i, r in running.items()
                        if r.process.poll() is not None or time.monotonic() - r.started > PAGE_TIMEOUT_S]
            if not finished:
                progress.check()
                time.sleep(0.02)
                continue
            for index in finished:
                state = running.pop(index)
                result = _collect(index, state)
                if state.main is None and not result.error:  # now read the head and foot bands alone
                    running[index] = _start_edges(doc, index, tmp, language, state, result)
                    continue
                if state.main is not None:
                    result = merge_edges(state.main, result, state.page_height, state.band)
                on_page(result)
                rate.done += 1
                rate.read_now += 1
                progress.step(rate.done, rate.total, rate.message(language, dpi))
    except OSError as exc:  # the temporary image could not be written: disk full, most often
        raise PdfError(f"OCR stopped: {exc.strerror or exc} (temporary folder {tmp.parent}).",
                       "Free some disk space and ingest again: the pages already read are kept.") from exc
    finally:
        for r in running.values():
            r.process.kill()
            r.process.wait()
            _close(r.process)
        shutil.rmtree(tmp, ignore_errors=True)


def _start(doc: pymupdf.Document, index: int, tmp: Path, language: str, dpi: int) -> _Running:
    page = doc.load_page(index)
    used_dpi = page_dpi(page, dpi)
    image = tmp / f"p{index}.pgm"
    page.get_pixmap(dpi=used_dpi, colorspace=pymupdf.csGRAY, alpha=False).save(str(image))
    out_base = tmp / f"p{index}"
    return _Running(start_page(image, out_base, language, used_dpi), time.monotonic(), out_base, used_dpi,
                    page.rect.height)


def _start_edges(doc: pymupdf.Document, index: int, tmp: Path, language: str, state: _Running,
                 main: PageOcr) -> _Running:
    """Read the page's top and bottom bands again as one block of lines (``--psm 6``).

    Tesseract's page layout analysis drops an isolated short line, and a page number alone in
    the foot ("17", "iv") is exactly that; read as a block, it is found (sparse-text mode,
    ``--psm 11``, missed it too).  The two bands are stacked
    into one small image, so this costs one quick process per page.
    """
    page = doc.load_page(index)
    band = EDGE_BAND * page.rect.height
    rect = page.rect
    top = page.get_pixmap(dpi=state.dpi, colorspace=pymupdf.csGRAY, alpha=False,
                          clip=pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y0 + band))
    bottom = page.get_pixmap(dpi=state.dpi, colorspace=pymupdf.csGRAY, alpha=False,
                             clip=pymupdf.Rect(rect.x0, rect.y1 - band, rect.x1, rect.y1))
    width = min(top.width, bottom.width)
    gap = np.full((EDGE_GAP_PX, width), 255, dtype=np.uint8)
    stacked = np.vstack([_array(top)[:, :width], gap, _array(bottom)[:, :width]])
    image = tmp / f"e{index}.pgm"
    image.write_bytes(b"P5\n%d %d\n255\n" % (stacked.shape[1], stacked.shape[0]) + stacked.tobytes())
    out_base = tmp / f"e{index}"
    process = start_page(image, out_base, language, state.dpi, block=True)
    running = _Running(process, state.started, out_base, state.dpi, page.rect.height, main)
    running.band = (top.height * 72.0 / state.dpi, (top.height + EDGE_GAP_PX) * 72.0 / state.dpi, band)
    return running


def _array(pixmap: pymupdf.Pixmap) -> np.ndarray:
    return np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)[:, :pixmap.width]


def merge_edges(main: PageOcr, edges: PageOcr, page_height: float, band: tuple[float, float, float]) -> PageOcr:
    """The main reading plus the head and foot lines only the band reading found (see _start_edges)."""
    top_height, bottom_start, band_height = band
    sizes = sorted(f.size for f in main.fragments)
    body = sizes[len(sizes) // 2] if sizes else 10.0
    added = []
    for f in edges.fragments:
        middle = (f.y0 + f.y1) / 2
        if middle <= top_height:
            shift = 0.0
        elif middle >= bottom_start:
            shift = page_height - band_height - bottom_start
        else:
            continue
        size = min(f.size, body)
        moved = Fragment(f.text, f.x0, f.y0 + shift, f.x1, f.y1 + shift, size, False, False, f.confidence)
        if not any(_overlaps(moved, m) for m in main.fragments):
            added.append(moved)
    if not added:
        return main
    return PageOcr(main.index, main.fragments + added, main.confidence, edges.seconds, main.dpi)


def _overlaps(a: Fragment, b: Fragment) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _collect(index: int, running: _Running) -> PageOcr:
    seconds = time.monotonic() - running.started
    process = running.process
    if process.poll() is None:  # hung: stopped by the timeout
        process.kill()
        process.wait()
        _close(process)
        return PageOcr(index, [], None, seconds, running.dpi, f"Tesseract took over {PAGE_TIMEOUT_S:.0f} s")
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    _close(process)
    hocr = running.out_base.with_suffix(".hocr")
    running.out_base.with_suffix(".pgm").unlink(missing_ok=True)
    if running.main is not None and (process.returncode != 0 or not hocr.exists()):
        return PageOcr(index, [], None, seconds, running.dpi)  # the edges only add: the page stands without
    if process.returncode != 0 or not hocr.exists():
        last = [line for line in stderr.splitlines() if line.strip()][-1:] or [f"exit status {process.returncode}"]
        return PageOcr(index, [], None, seconds, running.dpi, f"Tesseract failed: {last[0][:200]}")
    page = parse_hocr(hocr.read_text(encoding="utf-8", errors="replace"), running.dpi)
    hocr.unlink(missing_ok=True)
    return PageOcr(index, page.fragments, page.confidence, seconds, running.dpi)


def _close(process: subprocess.Popen) -> None:
    if process.stderr is not None:
        process.stderr.close()
