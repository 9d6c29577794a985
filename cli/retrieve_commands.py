"""CLI: ``retrieve``, ``embed``, ``catalog``, ``bench rerank`` and ``bench retrieval``."""

from __future__ import annotations

import argparse
import json
import time

from cli import arg_types
from cli.progress_printer import stderr_progress
from core.catalog import load_catalog
from core.errors import GrammarLensError
from core.retrieval import RetrievalSettings, pack_budget, retrieve, store_retrieval_run
from core.retrieval.budget import DEFAULT_BUDGET_TOKENS
from core.retrieval.settings import DEFAULT_RERANKER
from core.store import open_project


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("retrieve", help="find the paragraphs of a project that decide a feature")
    p.add_argument("project", type=arg_types.path, help="project file")
    p.add_argument("--feature", type=arg_types.feature_id, required=True,
                   help="feature id: 81A, GB107, PQ (= 116A*), 49A, ...")
    p.add_argument("--top", type=arg_types.int_range(1, 10_000), default=RetrievalSettings.final_top,
                   help="hits to show (default 20)")
    p.add_argument("--candidates", type=arg_types.int_range(1, 100_000), default=RetrievalSettings.bm25_top,
                   help="BM25 candidates (default 50)")
    p.add_argument("--rerank", type=arg_types.model_name, default=RetrievalSettings.reranker or "none",
                   metavar="MODEL|none",
                   help="embedding model (hub name or folder), or none "
                        f"(default {RetrievalSettings.reranker or 'none'})")
    p.add_argument("--ranking", choices=("combined", "bm25", "dense", "vocabulary"), default="combined")
    p.add_argument("--query", choices=("term", "descriptive", "both"), default=RetrievalSettings.query)
    p.add_argument("--instruction", type=arg_types.line, default="none",
                   help="none, default, specific, or a literal instruction")
    p.add_argument("--device", type=arg_types.device, default="auto", help="auto (CUDA, MPS, CPU), cpu, cuda, mps")
    p.add_argument("--budget", type=arg_types.int_range(0, 1_000_000), default=0, metavar="TOKENS",
                   help=f"only the hits that fit this evidence budget (e.g. {DEFAULT_BUDGET_TOKENS})")
    p.add_argument("--no-save", action="store_true", help="do not store the run in the project")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_retrieve)

    p = commands.add_parser("embed", help="embed every paragraph of a project once, so retrieval never waits "
                                          "for the model (resumable: run it again after a stop)")
    p.add_argument("project", type=arg_types.path, help="project file")
    p.add_argument("--model", type=arg_types.model_name, default=RetrievalSettings.reranker or "none",
                   help=f"embedding model (hub name or folder; default {RetrievalSettings.reranker or 'none'})")
    p.add_argument("--device", type=arg_types.device, default="auto", help="auto (CUDA, MPS, CPU), cpu, cuda, mps")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_embed)

    p = commands.add_parser("catalog", help="look up WALS and Grambank features")
    p.add_argument("words", type=arg_types.optional_line, nargs="*", help="feature id or words to search for")
    p.add_argument("--cldf", type=arg_types.path, help="CLDF folder to show the databases' full descriptions")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_catalog)

    p = bench.add_parser("rerank", help="NDCG@5/10/20 on the paper's reranker benchmark")
    p.add_argument("--data", type=arg_types.path, required=True, help="folder of benchmark CSVs")
    p.add_argument("--model", type=arg_types.model_name, default=DEFAULT_RERANKER,
                   help="bi-encoder to evaluate, or none")
    p.add_argument("--feature", type=arg_types.feature_id, default="81A")
    p.add_argument("--device", type=arg_types.device, default="auto")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_bench_rerank)

    p = bench.add_parser("retrieval", help="retrieval speed on a project (BM25, reranking, cache)")
    p.add_argument("project", type=arg_types.path)
    p.add_argument("--feature", type=arg_types.feature_id, default="81A")
    p.add_argument("--model", type=arg_types.model_name, default=DEFAULT_RERANKER)
    p.add_argument("--device", type=arg_types.device, default="auto")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_bench_retrieval)


def _settings(args: argparse.Namespace) -> RetrievalSettings:
    reranker = None if str(args.rerank).lower() == "none" else args.rerank
    return RetrievalSettings(
        bm25_top=args.candidates, final_top=args.top, reranker=reranker, ranking=args.ranking,
        query=args.query, instruction=args.instruction, device=args.device,
    )


def _retrieve(args: argparse.Namespace) -> int:
    feature = load_catalog().get(args.feature)
    settings = _settings(args)
    with open_project(args.project) as project:
        started = time.perf_counter()
        hits = retrieve(project, feature, settings, stderr_progress(f"retrieve {feature.id}"))
        seconds = time.perf_counter() - started
        if args.budget:
            hits = pack_budget(hits, args.budget)
        run_id = None if args.no_save else store_retrieval_run(project, feature.id, settings, hits, seconds=seconds)
    if args.json:
        print(json.dumps({"feature": feature.id, "run_id": run_id, "seconds": round(seconds, 3),
                          "hits": [h.to_json() for h in hits]}, ensure_ascii=False))
        return 0
    print(f"{feature.id} {feature.name}: {len(hits)} hits in {seconds:.2f} s" + (f" (run {run_id})" if run_id else ""))
    for h in hits:
        p = h.paragraph
        text = " ".join(p.text.split())
        part = f" ({h.part.label})" if h.part.label else ""  # front/back matter or a dictionary part
        print(f"{h.rank:>3}. {h.score:7.3f}  #{p.id} p.{p.page_label} (pdf {p.pdf_page}) [{p.kind.value}]{part} "
              f"{p.section}")
        print(f"       {text[:220]}{'…' if len(text) > 220 else ''}")
    return 0


def _embed(args: argparse.Namespace) -> int:
    from core.retrieval.book_embeddings import embed_book, needs_book_embeddings

    model = None if str(args.model).lower() == "none" else args.model
    settings = RetrievalSettings(reranker=model, device=args.device)
    if not needs_book_embeddings(settings):
        raise GrammarLensError("This model stores no paragraph vectors (none, or a cross-encoder).",
                               "Give a bi-encoder such as all-MiniLM-L6-v2 with --model.")
    with open_project(args.project) as project:
        run = embed_book(project, settings, stderr_progress("embed"))
    rate = run.embedded / run.seconds if run.seconds > 0 else 0.0
    if args.json:
        print(json.dumps({"model": run.model, "embedded": run.embedded, "already": run.total - run.embedded,
                          "total": run.total, "seconds": round(run.seconds, 2),
                          "paragraphs_per_s": round(rate, 1), "batches": run.batches}))
        return 0
    print(f"{run.model}: embedded {run.embedded:,} paragraph(s) in {run.seconds:.1f} s ({rate:.0f}/s, "
          f"{run.batches} batches); {run.total - run.embedded:,} already had vectors; {run.total:,} in all")
    return 0


def _catalog(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    text = " ".join(args.words)
    found = catalog.search(text) if text else list(catalog)
    descriptions = {}
    if args.cldf:
        from core.catalog.cldf_descriptions import load_cldf_descriptions

        descriptions = load_cldf_descriptions(args.cldf)
    if args.json:
        print(json.dumps([dict(f.to_json(), full_description=descriptions.get(f.id)) for f in found],
                         ensure_ascii=False))
        return 0
    if not found:
        raise GrammarLensError(f"No feature matches '{text}'.", "Try fewer words or an id such as 81A or GB107.")
    for f in found if len(found) > 1 else []:
        print(f"{f.id:<8} {f.dataset:<11} {f.name}")
    if len(found) == 1:
        f = found[0]
        print(f"{f.id} ({f.dataset}) {f.name}\n{f.definition}")
        for code, label in f.values:
            print(f"  {code}: {label}")
        if f.multi_label:
            print("  multi-label: " + ", ".join(f.multi_label))
        if f.id in descriptions:
            print("\n" + descriptions[f.id])
    return 0


def _bench_rerank(args: argparse.Namespace) -> int:
    from bench.retrieval import format_table, run_rerank_bench

    feature = load_catalog().get(args.feature)
    model = None if str(args.model).lower() == "none" else args.model
    report = run_rerank_bench(args.data, feature, model, device=args.device,
                              progress=None if args.json else stderr_progress("bench rerank"))
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(f"Reranker benchmark: {args.data} ({len(report['configs'][0]['per_grammar'])} grammars, feature "
              f"{feature.id}; NDCG@k over each grammar's candidates)")
        print(format_table(report))
    return 0


def _bench_retrieval(args: argparse.Namespace) -> int:
    from bench.retrieval_speed import run_speed_bench

    report = run_speed_bench(args.project, load_catalog().get(args.feature), args.model, device=args.device)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"Retrieval speed on {args.project.name} ({report['pages']} pages, {report['paragraphs']} paragraphs)")
    for key, value in report.items():
        if key.endswith("_s"):
            print(f"  {key[:-2]:<34} {value * 1000:10.1f} ms")
        elif key not in ("pages", "paragraphs"):
            print(f"  {key:<34} {value}")
    print("  targets: BM25 query < 50 ms; MiniLM rerank of 50 < 5 s; cached retrieval < 0.5 s")
    return 0


