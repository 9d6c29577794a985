"""CLI: ``ingest``, ``paragraphs``, ``language`` and ``bench ingest``."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

from bench.ingest import bench_ingest
from cli import arg_types
from cli.progress_printer import stderr_progress
from core.catalog.glottocode import check_glottocode
from core.catalog.languages import glottocode_for
from core.errors import GrammarLensError
from core.ingest import ingest
from core.ingest.language import is_unsure
from core.ingest.ocr_language import describe, normalise_language
from core.ingest.page_reading import OcrOptions, OcrReport
from core.models import Language
from core.output_paths import refuse_project
from core.store import create_project, open_project
from core.store.backups import backup_dir, list_backups
from core.store.ocr_pages import count_ocr_pages, document_ocr
from core.store.repository import get_language, list_documents, list_paragraphs, set_language


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("ingest", help="read a grammar PDF into a project file")
    p.add_argument("pdf", type=arg_types.path, help="the grammar PDF")
    p.add_argument("--project", type=arg_types.path, required=True, help="project file (created if missing)")
    p.add_argument("--language", type=arg_types.line, help="language name (default: guessed from the title)")
    p.add_argument("--glottocode", type=arg_types.line, help="Glottocode of the language, e.g. papu1250")
    p.add_argument("--ocr", choices=("auto", "force", "never"), default="auto",
                   help="auto (default): OCR pages without a text layer or with a poor one; force: OCR every "
                        "page; never: trust the text layer")
    p.add_argument("--ocr-language", type=arg_types.line, default="auto", metavar="LANG",
                   help="the language the grammar is written in, for OCR: eng, fra, spa, por, deu, rus, ind, nld "
                        "(or English, French...; several joined by '+'); default auto: detected")
    p.add_argument("--ocr-dpi", type=arg_types.int_range(100, 600), default=300, metavar="DPI",
                   help="resolution scanned pages are read at (default 300)")
    p.add_argument("--ocr-jobs", type=arg_types.int_range(0, 256), default=0, metavar="N",
                   help="pages read at once (default 0: one per core)")
    p.set_defaults(handler=_ingest)

    p = commands.add_parser("paragraphs", help="list a project's paragraphs")
    p.add_argument("project", type=arg_types.path)
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.add_argument("--page", type=arg_types.page_label, help="only paragraphs starting on this printed page label")
    p.set_defaults(handler=_paragraphs)

    p = commands.add_parser("language", help="show or set the project's language")
    p.add_argument("project", type=arg_types.path)
    p.add_argument("--name", type=arg_types.line)
    p.add_argument("--glottocode", type=arg_types.line)
    p.add_argument("--json", action="store_true", help='print {"name", "glottocode", "source"}')
    p.set_defaults(handler=_language)

    p = bench.add_parser("ingest", help="ingest speed against PyMuPDF's bare get_text('dict')")
    p.add_argument("pdfs", type=arg_types.path, nargs="*")
    p.add_argument("--generated-dictionary", action="store_true",
                   help="also a generated dictionary-and-grammar (see bench/dictionary_pdf.py), written once "
                        "into build/generated")
    p.add_argument("--dictionary-pages", type=arg_types.int_range(1, 5_000), default=616, metavar="N",
                   help="pages of the generated dictionary-and-grammar (default 616)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_bench_ingest)


def _ingest(args: argparse.Namespace) -> int:
    refuse_project(args.pdf, "ingest", "a grammar PDF")  # PyMuPDF must never open a project
    if args.project.suffix.lower() == ".pdf":
        raise GrammarLensError(f"--project {args.project} is named like a PDF; the project is a new file of its own.",
                               f"Give a project file name, e.g. --project {args.project.with_suffix('.grammarlens')}.")
    glottocode = check_glottocode(args.glottocode)  # a malformed code fails now, not after reading the book
    ocr = OcrOptions(mode=args.ocr, dpi=args.ocr_dpi, jobs=args.ocr_jobs,
                     language=None if args.ocr_language.lower() == "auto" else normalise_language(args.ocr_language))
    if os.path.lexists(args.project):
        project, made = open_project(args.project), None
    else:
        project = create_project(args.project)  # O_EXCL: never a file another process made meanwhile
        made = _MadeProject(args.project)
    try:
        with project:
            started = time.perf_counter()
            result = ingest(
                project, args.pdf, language=args.language, glottocode=glottocode.code,
                progress=stderr_progress(f"ingest {args.pdf.name}"), ocr=ocr,
            )
    except BaseException:
        kept = _ocr_pages_kept(args.project)
        if kept:  # pages Tesseract read are worth keeping: the same command continues from them
            print(f"{kept} page(s) read by OCR are kept in {args.project}; run the same command again to continue.",
                  file=sys.stderr)
        elif made is not None:  # a failed or interrupted first ingest leaves no empty project behind
            made.remove()
        raise
    if result.already_present:
        print(f"{args.pdf.name} is already in {args.project} (document {result.document_id}); nothing to do.")
        return 0
    language = result.language
    lang = f"{language.name} ({language.glottocode or 'no Glottocode'}, {language.source})" if language else "unknown"
    print(
        f"Ingested {args.pdf.name}: {result.pages} pages, {result.paragraphs} paragraphs "
        f"in {time.perf_counter() - started:.1f} s -> {args.project} (document {result.document_id}); language: {lang}"
    )
    if result.ocr is not None:
        _print_ocr(result.ocr)
    if glottocode.note and language is not None and language.glottocode == glottocode.code:
        print(f"note: {glottocode.note}", file=sys.stderr)
    if language is None or is_unsure(language) or not language.glottocode:
        print(_unidentified(args.project, language))
    return 0


def _print_ocr(report: OcrReport) -> None:
    if report.pages:
        how = "detected" if report.detected else "chosen"
        resumed = f", {report.resumed} of them kept from an earlier run" if report.resumed else ""
        confidence = f", mean confidence {report.confidence:.0f}" if report.confidence is not None else ""
        print(f"OCR: {report.pages} page(s) read with {describe(report.language)} ({how}){resumed}{confidence}.")
    if report.poor_layer:
        what = "read by OCR instead" if report.pages else "kept as they are (--ocr auto reads them by OCR)"
        print(f"text layer not trusted on {len(report.poor_layer)} page(s) ({_pages(report.poor_layer)}): {what}.")
    if report.not_read:
        print(f"warning: {len(report.not_read)} page(s) without a usable text layer ({_pages(report.not_read)}) were "
              "not read: Tesseract is not installed (sudo apt-get install tesseract-ocr tesseract-ocr-eng).",
              file=sys.stderr)
    for page, error in report.failed:
        print(f"warning: page {page} could not be read by OCR ({error}); skipped. Run the same command on a new "
              "project to retry it.", file=sys.stderr)


def _pages(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:10]))
    return shown + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")


def _ocr_pages_kept(project: Path) -> int:
    try:
        with open_project(project, readonly=True) as opened:
            return count_ocr_pages(opened)
    except (GrammarLensError, sqlite3.Error):  # only a courtesy message depends on it
        return 0


class _MadeProject:
    """A project file this command created, removed again (with its side files) if the first ingest fails.

    Only what this command made goes: the file while it is still the one created (same device and
    inode), SQLite's ``-wal``/``-shm``/``-journal`` beside it, and the backups folder if it appeared
    meanwhile (only backup files named after this project, and the folder if that empties it).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity = _identity(path)
        self.backups = backup_dir(path)
        self.backups_existed = os.path.lexists(self.backups)

    def remove(self) -> None:
        if self.identity is None or _identity(self.path) != self.identity:
            return  # replaced by another program meanwhile: not ours any more
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")
        if self.backups_existed or not self.backups.is_dir() or self.backups.is_symlink():
            return
        for backup in list_backups(self.path):
            with contextlib.suppress(OSError):
                backup.path.unlink()
        with contextlib.suppress(OSError):
            self.backups.rmdir()  # left alone if anything else is in it


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _unidentified(project: Path, language: Language | None) -> str:
    """Tell the user that the language is not (or not surely) identified, and how to set it."""
    if language is None or not language.name:
        what = "The language is not identified"
    elif is_unsure(language):
        guessed_from = language.source.removeprefix("unsure:")
        what = f"The language is not surely identified (guessed {language.name!r} from the {guessed_from})"
    else:
        what = f"{language.name} has no Glottocode"
    return (f"{what}; set it with: python main.py language {project} --name NAME --glottocode CODE "
            "(Glottocodes: glottolog.org)")


def _paragraphs(args: argparse.Namespace) -> int:
    with open_project(args.project, readonly=True) as project:
        paragraphs = list_paragraphs(project)
    if args.page is not None:
        paragraphs = [p for p in paragraphs if p.page_label == args.page]
    if args.json:
        json.dump([p.to_json() for p in paragraphs], sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        for p in paragraphs:
            snippet = p.text.replace("\n", " / ")
            mark = f"[OCR {p.ocr_confidence:.0f}] " if p.low_confidence and p.ocr_confidence is not None else ""
            section = p.section.split(" > ")[-1][:40]
            print(f"[{p.id}] p.{p.page_label} ({p.kind.value}) {section}: {mark}{snippet[:100]}")
    return 0


def _language(args: argparse.Namespace) -> int:
    with open_project(args.project, readonly=not (args.name or args.glottocode)) as project:
        if args.name or args.glottocode:
            current = get_language(project)
            name = args.name or (current.name if current else None)
            if not name:
                raise GrammarLensError("The project has no language yet.", "Give --name as well.")
            if args.glottocode:
                code = args.glottocode
            elif args.name and (current is None or args.name != current.name):
                code = glottocode_for(args.name)  # a new name: its own Glottocode, never the old one's
            else:
                code = current.glottocode if current else None
            check = set_language(project, Language(name, code, "user"))
            if check.note:  # a well-formed code the bundled table does not know: stored, but worth a look
                print(f"note: {check.note}", file=sys.stderr)
        language = get_language(project)
        documents = list_documents(project)
        ocr = [document_ocr(project, d.id) for d in documents]
    if args.json:
        print(json.dumps({"name": language.name if language else None,
                          "glottocode": language.glottocode if language else None,
                          "source": language.source if language else None}, ensure_ascii=False))
        return 0
    read = "; ".join(f"{d.file_name} read by OCR in {describe(code)} ({pages} pages)"
                     for d, (code, pages) in zip(documents, ocr, strict=True) if pages)
    print(f"language: {language.name if language else '-'}; glottocode: {language.glottocode if language else '-'}; "
          f"{len(documents)} document(s)" + (f"; {read}" if read else ""))
    return 0


def _bench_ingest(args: argparse.Namespace) -> int:
    pdfs = list(args.pdfs)
    if args.generated_dictionary:
        from bench.dictionary_pdf import cached_dictionary_pdf

        pdfs.append(cached_dictionary_pdf(args.dictionary_pages))
    if not pdfs:
        raise GrammarLensError("No PDF to measure.", "Name grammar PDFs, or add --generated-dictionary.")
    rows = [bench_ingest(pdf) for pdf in pdfs]
    if args.json:
        json.dump([r.to_json() for r in rows], sys.stdout, indent=1)
        print()
        return 0
    print(f"{'file':34} {'pages':>6} {'paragraphs':>10} {'seconds':>8} {'raw s':>7} {'ratio':>6} {'cpu ratio':>9}")
    for r in rows:
        print(f"{r.file:34} {r.pages:6d} {r.paragraphs:10d} {r.seconds:8.2f} {r.raw_seconds:7.2f} {r.ratio:6.2f} "
              f"{r.cpu_ratio:9.2f}")
    total, raw = sum(r.seconds for r in rows), sum(r.raw_seconds for r in rows)
    cpu, raw_cpu = sum(r.cpu_seconds for r in rows), sum(r.raw_cpu_seconds for r in rows)
    print(f"{'all':34} {sum(r.pages for r in rows):6d} {sum(r.paragraphs for r in rows):10d} "
          f"{total:8.2f} {raw:7.2f} {total / raw if raw else 0:6.2f} {cpu / raw_cpu if raw_cpu else 0:9.2f}")
    print("target: ratio <= 2.0; 770-page grammar < 10 s", file=sys.stderr)
    return 0
