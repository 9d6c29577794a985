"""The profile settings that `profile` and `bench profile` read from the same command-line options."""

from __future__ import annotations

import argparse


def batch_settings_from_args(args: argparse.Namespace):
    """BatchSettings from --no-reranker, --budget, --no-llm, --model, --base-url, --timeout, --concurrency,
    --config and --answer-format (the last two optional), so both commands build a run the same way."""
    from core.llm import LlmSettings
    from core.profile import BatchSettings
    from core.retrieval import RetrievalSettings

    retrieval = RetrievalSettings()
    if args.no_reranker:
        retrieval = retrieval.with_(reranker=None)
    if args.budget:
        retrieval = retrieval.with_(budget_tokens=args.budget)
    if args.no_llm:
        return BatchSettings(mode="retrieval", retrieval=retrieval, concurrency=1)
    llm = LlmSettings(max_concurrency=max(1, args.concurrency))
    if args.model:
        llm.model = args.model
    if args.base_url:
        llm.base_url = args.base_url
    llm.api_key_env = getattr(args, "api_key_env", None)
    if getattr(args, "timeout", None):
        llm.timeout_s = args.timeout
    llm.answer_format = getattr(args, "answer_format", "auto")
    return BatchSettings(mode="llm", config=args.config, llm=llm, retrieval=retrieval,
                         concurrency=max(1, args.concurrency))
