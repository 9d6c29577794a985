"""``classify`` (ask the LLM for a feature's value) and ``bench rag`` (replay the paper's RAG benchmark)."""

from __future__ import annotations

import argparse
import json
import sys

from cli import arg_types
from cli.progress_printer import stderr_progress
from cli.server_options import add_server_options
from core.retrieval.budget import DEFAULT_BUDGET_TOKENS


def register(commands, bench) -> None:
    p = commands.add_parser("classify", help="ask an LLM for a feature's value, citing the grammar's paragraphs")
    p.add_argument("file", type=arg_types.path, help="project file (.grammarlens)")
    p.add_argument("--feature", type=arg_types.feature_id, required=True,
                   help="feature id, e.g. 81A, GB107, 49A, 116A*")
    _llm_options(p)
    p.add_argument("--no-reranker", action="store_true", help="rank by BM25 and vocabulary only (no embedding model)")
    p.add_argument("--budget", type=arg_types.int_range(1, 1_000_000), default=None,
                   help=f"evidence token budget (default {DEFAULT_BUDGET_TOKENS})")
    p.add_argument("--no-cache", action="store_true", help="ask again even if this exact prompt was answered")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    p.set_defaults(handler=_classify)

    b = bench.add_parser("rag", help="replay the paper's RAG benchmark and print Table 4 style F1 and MCC",
                         description="Gold pages may be printed page numbers while the paper's chunk pages may be "
                                     "PDF indices: the page-coverage line compares both rankings on the same raw "
                                     "numbers.")
    b.add_argument("--data", type=arg_types.path, default=None,
                   help="the paper's bench/rag folder (default ../shared/bench/rag)")
    b.add_argument("--feature", type=arg_types.feature_id, required=True, help="81A, GB107, 49A or 116A*")
    b.add_argument("--ranking", choices=["paper", "ours"], default="paper",
                   help="paper: the paper's 50 chunks in its order; ours: GrammarLens re-ranks them within the budget")
    b.add_argument("--budget", type=arg_types.int_range(1, 1_000_000), default=DEFAULT_BUDGET_TOKENS,
                   help=f"evidence token budget for --ranking ours (default {DEFAULT_BUDGET_TOKENS})")
    b.add_argument("--limit", type=arg_types.int_range(1, 1_000_000), default=None, help="only the first N grammars")
    _llm_options(b)
    b.add_argument("--batch-out", type=arg_types.path, metavar="REQUESTS.jsonl",
                   help="write the benchmark's prompts as a batch file (OpenAI Batch API, vLLM run_batch), ask nothing")
    b.add_argument("--batch-in", type=arg_types.path, metavar="RESULTS.jsonl",
                   help="score the answers of a batch results file (same options as for --batch-out)")
    b.add_argument("--json", action="store_true")
    b.set_defaults(handler=_bench_rag)


def _llm_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", choices=["baseline", "rag", "rag-guidelines"], default="rag")
    add_server_options(p)
    p.add_argument("--temperature", type=arg_types.float_range(0, 2), default=None)
    p.add_argument("--timeout", type=arg_types.float_range(0, 86_400, low_open=True), default=None,
                   help="seconds per request")
    p.add_argument("--concurrency", type=arg_types.int_range(1, 256), default=None)
    p.add_argument("--context-tokens", type=arg_types.int_range(1, 10_000_000), default=None,
                   help="the model's context window, if not known")
    p.add_argument("--answer-format", choices=["auto", "json_schema", "conclusion"], default="auto")


def _settings(args: argparse.Namespace):
    from core.llm import LlmSettings

    s = LlmSettings(answer_format=args.answer_format)
    if args.model:
        s.model = args.model
    if args.base_url:
        s.base_url = args.base_url
    s.api_key_env = getattr(args, "api_key_env", None)
    if args.temperature is not None:
        s.temperature = args.temperature
    if args.timeout is not None:
        s.timeout_s = args.timeout
    if args.concurrency:
        s.max_concurrency = args.concurrency
    if args.context_tokens:
        s.context_tokens = args.context_tokens
    if getattr(args, "no_cache", False):
        s.use_cache = False
    return s


def _classify(args: argparse.Namespace) -> int:
    from core.llm import classify, feature_of
    from core.store import open_project

    settings = _settings(args)
    with open_project(args.file) as project:
        result = classify(project, feature_of(args.feature), config=args.config, llm_settings=settings,
                          retrieval_settings=_retrieval_settings(args), progress=stderr_progress("classify"))
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        _print_result(result)
    if result.evidence_note:
        print(f"note: {result.evidence_note}", file=sys.stderr)
    for flag in result.flags:
        print(f"warning: {flag.message}", file=sys.stderr)
    if result.status != "ok":
        print(f"warning: no value stored: {result.problem}", file=sys.stderr)
        return 1
    return 0


def _retrieval_settings(args: argparse.Namespace):
    """Default retrieval settings, adjusted by --no-reranker and --budget (None if retrieval is unavailable)."""
    try:
        from core.retrieval import RetrievalSettings
    except ImportError:
        return None
    settings = RetrievalSettings()
    if args.no_reranker:
        settings = settings.with_(reranker=None)
    if args.budget:
        settings = settings.with_(budget_tokens=args.budget)
    return settings


def _print_result(result) -> None:
    values = ", ".join(v.label if v.feature_id == result.feature_id else f"{v.feature_id}={v.label}"
                       for v in result.values) or "(none)"
    print(f"{result.feature_id} {result.feature_name}: {values}")
    cited = [e for e in result.evidence if e.cited]
    if cited:
        print("cited: " + ", ".join(f"paragraph {e.paragraph_id} (p. {e.page_label})" for e in cited))
    print(f"model {result.model}, {result.tokens:,} tokens"
          + (f", ${result.cost_usd:.4f}" if result.cost_usd else "")
          + (", from cache" if result.cached else f", {result.seconds:.1f} s"))
    if result.reasoning:
        print("reasoning: " + result.reasoning.strip())


def _bench_rag(args: argparse.Namespace) -> int:
    from bench.rag import default_data_dir, print_report, run_bench
    from core.llm import LlmClient, feature_of

    feature = feature_of(args.feature)
    if args.batch_out or args.batch_in:
        return _bench_rag_files(args, feature)
    client = LlmClient(_settings(args))
    report = run_bench(args.data or default_data_dir(), feature, client, config=args.config, ranking=args.ranking,
                       budget_tokens=args.budget, limit=args.limit, progress=stderr_progress("bench rag"))
    print_report(report, args.json)
    return 0


def _bench_rag_files(args: argparse.Namespace, feature) -> int:
    """``bench rag --batch-out FILE`` writes the prompts; ``--batch-in FILE`` scores answers made elsewhere."""
    from bench.rag import default_data_dir, print_report
    from bench.rag_batch import score_results, write_requests
    from core.errors import GrammarLensError

    if args.batch_out and args.batch_in:
        raise GrammarLensError("Give --batch-out or --batch-in, not both.", "Write the prompts first, then score.")
    data = args.data or default_data_dir()
    options = {"config": args.config, "ranking": args.ranking, "budget_tokens": args.budget, "limit": args.limit}
    if args.batch_out:
        from core.output_paths import check_output_file

        check_output_file(args.batch_out, option="--batch-out")
        count = write_requests(data, feature, _settings(args), args.batch_out, **options)
        print(f"wrote {count} request(s) to {args.batch_out}; score the results with the same options and "
              f"--batch-in RESULTS.jsonl")
        return 0
    report, problems = score_results(data, feature, _settings(args), args.batch_in, **options)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    print_report(report, args.json)
    return 0
