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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import pymupdf

from core.errors import PdfError
from core.ingest.hocr import parse_hocr
from core.ingest.layout import Fragment
from core.ingest.ocr_edges import has_page_number, merge_edges, start_edges
from core.ingest.tesseract import has_osd, read_rotation, start_orientation, start_page
from core.progress import Progress

CHECK_ORIENTATION_BELOW = 60.0  # a page read with less mean confidence is checked for being upside down
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
    rotation: int = 0  # 90/180/270: read turned round that far; the lines are in the turned page's coordinates


@dataclass
class _Running:
    """One page on its way: a Tesseract process for one of its steps, and what the steps before gave."""

    process: subprocess.Popen
    started: float
    out_base: Path
    dpi: int
    page_height: float  # points
    stage: str = "main"  # main -> (orientation -> turned) -> edges
    turn: int = 0  # the turn (degrees) the orientation model asked for
    result: PageOcr | None = None  # the reading so far
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
                follow = _advance(doc, index, tmp, language, state)
                if follow is not None:
                    running[index] = follow
                    continue
                for leftover in tmp.glob(f"?{index}.*"):
                    leftover.unlink(missing_ok=True)
                assert state.result is not None
                on_page(state.result)
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


def _advance(doc: pymupdf.Document, index: int, tmp: Path, language: str, state: _Running) -> _Running | None:
    """Collect the step that finished and start the page's next one; None once the page is done
    (its reading in ``state.result``).

    A page read with little confidence may be upside down or sideways (a landscape table): the
    orientation model (``osd``) is asked, and the page is read again turned as it says; the
    better reading is kept.
    """
    if state.stage == "main":
        state.result = result = _collect(index, state)
        if result.error:
            return None
        if (result.confidence is None or result.confidence < CHECK_ORIENTATION_BELOW) and has_osd():
            process = start_orientation(state.out_base.with_suffix(".pgm"), tmp / f"o{index}")
            return replace(state, process=process, out_base=tmp / f"o{index}", stage="orientation")
        return _edges(doc, index, tmp, language, state)
    if state.stage == "orientation":
        if state.process.poll() is None:  # hung: no answer about the orientation
            state.process.kill()
            state.process.wait()
        _close(state.process)
        rotation = read_rotation(state.out_base.with_suffix(".osd"))
        if rotation not in (90, 180, 270):
            return _edges(doc, index, tmp, language, state)
        page = doc.load_page(index)
        image = tmp / f"f{index}.pgm"
        zoom = state.dpi / 72.0
        page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom).prerotate(rotation), colorspace=pymupdf.csGRAY,
                        alpha=False).save(str(image))
        return replace(state, process=start_page(image, tmp / f"f{index}", language, state.dpi),
                       out_base=tmp / f"f{index}", stage="turned", turn=rotation)
    assert state.result is not None
    if state.stage == "turned":
        turned = _collect(index, state)
        if not turned.error and (turned.confidence or 0.0) > (state.result.confidence or 0.0):
            state.result = replace(turned, rotation=state.turn)  # the furniture of a turned page is not read again
            return None
        return _edges(doc, index, tmp, language, state)
    edges = _collect(index, state)
    fragments = merge_edges(state.result.fragments, edges.fragments, state.page_height, state.band)
    state.result = replace(state.result, fragments=fragments, seconds=edges.seconds)
    return None


def _edges(doc: pymupdf.Document, index: int, tmp: Path, language: str, state: _Running) -> _Running | None:
    assert state.result is not None
    if has_page_number(state.result.fragments, state.page_height):
        return None  # the number was read with the page: no second reading
    process, band = start_edges(doc.load_page(index), tmp / f"e{index}.pgm", tmp / f"e{index}", language,
                                state.dpi)
    return replace(state, process=process, out_base=tmp / f"e{index}", stage="edges", band=band)


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
    if running.stage == "edges" and (process.returncode != 0 or not hocr.exists()):
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
