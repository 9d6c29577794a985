"""``bench rag --batch-out / --batch-in``: the paper's RAG benchmark answered by any engine, scored here.

The benchmark's state is its data folder, not a project, so nothing is remembered between writing
and scoring: both rebuild each grammar's prompt the same way (:func:`bench.rag.item_evidence`
and :func:`core.llm.ask.prepare_prompt`), and a result counts only when its ``custom_id`` names a
grammar of this run and carries the hash of the prompt rebuilt now.  Lines are written and read one
at a time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.errors import GrammarLensError
from core.retrieval.budget import DEFAULT_BUDGET_TOKENS

PREFIX = "glrag"


def _prompts(data_dir: Path, feature, settings, *, config: str, ranking: str, budget_tokens: int,
             limit: int | None):
    """(item, chosen chunks, prompt, sent evidence, note) per benchmark grammar, in file order."""
    from bench.rag import item_evidence, load_items
    from core.llm.ask import answer_format, prepare_prompt

    items = load_items(data_dir, feature)
    items = items[:limit] if limit else items
    if not items:
        raise GrammarLensError(f"No benchmark grammars with gold values for {feature.id} in {data_dir}.", "")
    fmt = answer_format(settings)
    for item in items:
        chosen, evidence = item_evidence(item, feature, config, ranking, budget_tokens)
        prompt, sent, note = prepare_prompt(settings, feature, config, item.language, evidence, fmt)
        yield item, chosen, prompt, sent, note


def custom_id(spec_id: str, config: str, ranking: str, prompt_hash: str, key: str) -> str:
    return f"{PREFIX}:{spec_id}:{config}:{ranking}:{prompt_hash[:16]}:{key}"


def write_requests(data_dir: Path, feature, settings, out_path: str | os.PathLike, *, config: str = "rag",
                   ranking: str = "paper", budget_tokens: int = DEFAULT_BUDGET_TOKENS, limit: int | None = None) -> int:
    """Write one request line per benchmark grammar; returns the number written.

    ``out_path`` and its ``.part`` are checked first (never a project, a PDF or a folder; an earlier
    requests file is replaced); a failed write leaves no ``.part`` behind.
    """
    from core.llm.batch_lines import request_line
    from core.llm.client import chat_request_body
    from core.output_paths import check_output_file

    out = check_output_file(out_path)
    part = check_output_file(out.with_name(out.name + ".part"))
    count = 0
    try:
        with open(part, "w", encoding="utf-8", newline="\n") as fh:
            for item, _chosen, prompt, _sent, _note in _prompts(data_dir, feature, settings, config=config,
                                                                ranking=ranking, budget_tokens=budget_tokens,
                                                                limit=limit):
                body = chat_request_body(settings, prompt.messages, response_format=prompt.response_format)
                fh.write(request_line(custom_id(feature.id, config, ranking, prompt.hash(), item.key), body) + "\n")
                count += 1
        os.replace(part, out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return count


def score_results(data_dir: Path, feature, settings, results_path: str | os.PathLike, *, config: str = "rag",
                  ranking: str = "paper", budget_tokens: int = DEFAULT_BUDGET_TOKENS, limit: int | None = None):
    """Score a results file: returns the :class:`~bench.rag.BenchReport` and the problems by line."""
    from bench.rag import ItemResult, _paper_top_pages, item_result
    from bench.rag import score_results as score
    from core.llm.ask import read_answer
    from core.llm.batch_lines import BadLine, answer_body, iter_jsonl, line_error
    from core.llm.client import read_chat_response
    from core.llm.errors import LlmError

    source = Path(results_path)
    if not source.is_file():
        raise GrammarLensError(f"{source} does not exist.", "Give the results file the batch run wrote.")
    expected = {}
    for item, chosen, prompt, sent, note in _prompts(data_dir, feature, settings, config=config, ranking=ranking,
                                                     budget_tokens=budget_tokens, limit=limit):
        expected[custom_id(feature.id, config, ranking, prompt.hash(), item.key)] = (item, chosen, prompt, sent, note)
    results: dict[str, ItemResult] = {}
    problems: list[str] = []
    for number, raw, complete in iter_jsonl(source):
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError):
            problems.append(f"line {number}: {'is cut off' if not complete else 'is not valid JSON'}")
            continue
        cid = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(cid, str) or cid not in expected:  # a list or an object as custom_id is not hashable
            problems.append(f"line {number}: custom_id {cid!r} is not a prompt of this benchmark run "
                            "(another feature, configuration, ranking, budget or model settings?)")
            continue
        item, chosen, prompt, sent, note = expected[cid]
        if item.key in results:
            problems.append(f"line {number}: {item.key} answered again; kept the first")
            continue
        error = line_error(line)
        if error is None:
            try:  # the body is checked as a project import checks it, then read as an online reply
                body, _usage_read = answer_body(line["response"]["body"])
                response = read_chat_response(body, settings.model, local=settings.is_local())
            except BadLine as bad:
                error = bad.reason
            except LlmError as exc:
                error = exc.message
        if error is not None:
            problems.append(f"line {number}: {item.key}: {error}")
            continue
        results[item.key] = item_result(item, feature, chosen, read_answer(feature, prompt, response, sent, note))
    ordered = []
    for item, *_ in expected.values():
        ordered.append(results.get(item.key) or ItemResult(item, paper_top_pages=_paper_top_pages(item),
                                                           error="no answer in the results file"))
    return score(feature, ordered, config, ranking, settings.model), problems
