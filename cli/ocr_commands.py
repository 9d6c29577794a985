"""CLI: ``bench ocr`` (scanned copies of the shared grammars read against the born-digital text)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from cli import arg_types
from core.errors import GrammarLensError

TARGETS = "targets: word match >= 0.95 clean, >= 0.90 degraded; labels >= 0.95; <= 1.5 s/page on 2 cores; <= 1 GB"


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = bench.add_parser("ocr", help="OCR of 300-dpi scans (clean and degraded) against the born-digital text")
    p.add_argument("pdfs", type=arg_types.path, nargs="*", help="born-digital grammar PDFs (default: the shared ones)")
    p.add_argument("--pages", type=arg_types.int_range(2, 200), default=8, metavar="N",
                   help="consecutive body pages per grammar (default 8)")
    p.add_argument("--variants", default="clean,degraded", metavar="LIST",
                   help="clean, degraded or both, comma-separated (default both)")
    p.add_argument("--dpi", type=arg_types.int_range(100, 600), default=300, help="OCR resolution (default 300)")
    p.add_argument("--jobs", type=arg_types.int_range(0, 256), default=0, help="pages at once (default: all cores)")
    p.add_argument("--seed", type=arg_types.int_range(0, 2**31), default=0, help="seed of the degradations")
    p.add_argument("--before", type=arg_types.path, metavar="CHECKOUT",
                   help="ingest the scans with this checkout's main.py instead (before/after figures)")
    p.add_argument("--ocr-language", default="auto", metavar="LANG",
                   help="Tesseract's model(s), as for ingest (default auto: detected, as ingest does)")
    p.add_argument("--retrieval", action="store_true",
                   help="judged NDCG@10 of a whole scanned grammar against its born-digital copy "
                        "(PDFs name judged grammars; default: the one with fewest pages)")
    p.add_argument("--rankings", default="default,bm25", metavar="LIST",
                   help="with --retrieval: rankings of bench judged, comma-separated (default default,bm25)")
    p.add_argument("--cache", type=arg_types.path, metavar="DIR",
                   help="with --retrieval: where scans and OCR'd pages are kept (default ~/.cache/grammarlens-bench)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_bench_ocr)


def _bench_ocr(args: argparse.Namespace) -> int:
    from bench.ocr import run_ocr_bench
    from bench.paths import SHARED_GRAMMARS

    if args.retrieval:
        return _bench_ocr_retrieval(args)
    pdfs = list(args.pdfs) or sorted(SHARED_GRAMMARS.glob("*.pdf"))
    if not pdfs:
        raise GrammarLensError("No grammar PDF to measure.",
                               f"Name born-digital PDFs, or put them in {SHARED_GRAMMARS}.")
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    if not variants or any(v not in ("clean", "degraded") for v in variants):
        raise GrammarLensError(f"Unknown --variants {args.variants!r}.", "Give clean, degraded or clean,degraded.")
    rows = []
    with tempfile.TemporaryDirectory(prefix="grammarlens-bench-ocr-") as tmp:
        for pdf in pdfs:
            print(f"bench ocr: {pdf.name}", file=sys.stderr, flush=True)
            rows += run_ocr_bench(pdf, Path(tmp), pages=args.pages, variants=variants, dpi=args.dpi,
                                  jobs=args.jobs, seed=args.seed, before=args.before, language=_language(args))
    if args.json:
        json.dump([r.to_json() for r in rows], sys.stdout, indent=1)
        print()
        return 0
    print(f"{'grammar':22} {'variant':16} {'pages':>5} {'prose':>5} {'words':>7} {'labels':>6} {'paras':>6} "
          f"{'s/page':>6} {'MB':>6} {'conf':>5} {'low':>5}")
    for r in rows:
        conf = f"{r.mean_confidence:5.1f}" if r.mean_confidence is not None else "    -"
        mark = "*" if r.scored == "all" else " "
        print(f"{r.grammar:22} {r.variant:16} {r.pages:5d} {r.prose_pages:5d} {r.word_match:6.3f}{mark} "
              f"{r.labels_recovered:6.3f} {r.boundary_agreement:6.3f} {r.seconds_per_page:6.2f} "
              f"{r.peak_memory_mb:6.0f} {conf} {r.low_confidence_share:5.2f}")
    for variant in sorted({r.variant for r in rows}):
        mine = [r for r in rows if r.variant == variant]
        print(f"{'mean':22} {variant:16} {sum(r.pages for r in mine):5d} {sum(r.prose_pages for r in mine):5d} "
              f"{_mean([r.word_match for r in mine]):6.3f}  {_mean([r.labels_recovered for r in mine]):6.3f} "
              f"{_mean([r.boundary_agreement for r in mine]):6.3f} {_mean([r.seconds_per_page for r in mine]):6.2f}")
    print("* no prose page in the run: word match and boundaries over every page with text", file=sys.stderr)
    print(TARGETS, file=sys.stderr)
    return 0


def _bench_ocr_retrieval(args: argparse.Namespace) -> int:
    from bench.ocr_retrieval import DEFAULT_CACHE, TARGET_GAP, run_ocr_retrieval
    from cli.progress_printer import stderr_progress

    names = tuple(n.strip() for n in args.rankings.split(",") if n.strip())
    report = run_ocr_retrieval([Path(p).name for p in args.pdfs], cache=args.cache or DEFAULT_CACHE,
                               ranking_names=names, jobs=args.jobs, language=_language(args),
                               progress=stderr_progress("bench ocr --retrieval", every_seconds=10))
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
        return 0
    print(f"{'grammar':22} {'ranking':10} {'pairs':>5} {'born':>7} {'scanned':>7} {'gap':>7} "
          f"{'ungraded':>8} {'unmapped':>8}")
    for grammar in report["grammars"] + [{"file": "all", "summary": report["summary"]}]:
        for name, s in grammar["summary"].items():
            print(f"{Path(grammar['file']).stem:22} {name:10} {s['pairs']:5d} {_num(s['ndcg@10_born'])} "
                  f"{_num(s['ndcg@10_scanned'])} {_num(s['gap'])} {s['ungraded@10_scanned']:8.3f} "
                  f"{s['unmapped@10_scanned']:8.3f}")
    for grammar in report["grammars"]:
        print(f"{grammar['file']}: {grammar['pdf_pages']} pages, {grammar['paragraphs_born']} paragraphs born-digital, "
              f"{grammar['paragraphs_scanned']} scanned; Tesseract {grammar['tesseract_seconds_per_page']} s a page",
              file=sys.stderr)
    print(f"target: scanned NDCG@10 within {TARGET_GAP} of born-digital (gap = born - scanned)", file=sys.stderr)
    return 0


def _language(args: argparse.Namespace) -> str | None:
    from core.ingest.ocr_language import normalise_language

    return None if args.ocr_language.lower() == "auto" else normalise_language(args.ocr_language)


def _num(value: float | None) -> str:
    return f"{value:7.4f}" if value is not None else "      -"


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
