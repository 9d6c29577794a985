"""One round of retrieval-augmented classification: build the prompt, ask, read the answer.

This is the part shared by ``classify`` (project paragraphs, stored) and ``bench rag`` (the
paper's chunks, not stored).  It owns the decisions that keep a run from failing for avoidable
reasons: shrink the evidence to fit the model's context (and say so), fall back from JSON-schema
answers to the paper's "Conclusion:" format when a server refuses structured output, retry an
empty answer once, serve repeated prompts from the cache, and flag answers that rely on a
paragraph that tries to instruct the model.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from core.catalog.model import Feature
from core.llm.cache import cache_key
from core.llm.client import ChatResponse, LlmClient
from core.llm.errors import LlmError
from core.llm.parse import ParsedAnswer, parse_answer
from core.llm.prompts import Evidence, Prompt, build_prompt
from core.llm.settings import LlmSettings
from core.llm.tokens import estimate_tokens
from core.records.classifications import Flag
from core.records.vocabulary import ErrorKind

MAX_SHRINKS = 4
_FORMAT_REFUSED: set[tuple[str, str]] = set()  # (base url, model) that rejected JSON-schema answers
_FORMAT_LOCK = threading.Lock()

# Sentences that address the model rather than describe a language.
_INJECTION = re.compile(
    r"(?i)\b(ignore|disregard|forget)\b[^.\n]{0,40}\b(above|previous|prior|earlier|instructions?|prompt)\b"
    r"|\b(answer|reply|respond|output)\b[^.\n]{0,20}\b(with|only)\b[^.\n]{0,30}"
    r"(conclusion|option|svo|sov|vso|vos|ovs|osv|\b[01]\b)"
    r"|\byou are (now )?(an?|the) (ai|assistant|language model|chatbot)\b"
    r"|\bsystem prompt\b|\bnew instructions?\b"
)


class Cache(Protocol):
    def get(self, key: str) -> ChatResponse | None: ...

    def put(self, key: str, prompt_hash: str, response: ChatResponse) -> None: ...


@dataclass
class AskOutcome:
    prompt: Prompt
    response: ChatResponse
    parsed: ParsedAnswer
    evidence: tuple[Evidence, ...]  # what was actually sent
    evidence_tokens: int
    note: str = ""
    flags: list[Flag] = field(default_factory=list)
    seconds: float = 0.0


def looks_like_instruction(text: str) -> bool:
    """True when a paragraph contains text addressed to a language model."""
    return bool(_INJECTION.search(text))


def ask(client: LlmClient, feature: Feature, config: str, language: str, evidence: list[Evidence],
        cache: Cache | None = None) -> AskOutcome:
    """Ask for the feature's value; raises :class:`LlmError` only when no answer could be had."""
    settings = client.settings
    started = time.monotonic()
    fmt = _answer_format(client)
    prompt, items, note = prepare_prompt(settings, feature, config, language, evidence, fmt)
    shrinks = 0
    empty_retries = 0
    while True:
        key = cache_key(settings, prompt.hash())
        response = cache.get(key) if cache is not None and settings.use_cache else None
        if response is None:
            try:
                response = client.complete(prompt.messages, response_format=prompt.response_format)
            except LlmError as exc:
                unsupported = exc.kind == ErrorKind.FORMAT_UNSUPPORTED
                if unsupported and settings.answer_format == "auto" and fmt == "json_schema":
                    with _FORMAT_LOCK:
                        _FORMAT_REFUSED.add((settings.public_base_url(), settings.model))
                    fmt = "conclusion"
                    prompt = build_prompt(feature, config, language, items, fmt)
                    continue
                if exc.kind == ErrorKind.CONTEXT_LENGTH and items and shrinks < MAX_SHRINKS:
                    shrinks += 1
                    before = len(items)
                    items = items[: len(items) // 2]
                    note = (f"The server said the prompt was too long; sent the top {len(items)} of "
                            f"{len(evidence)} paragraphs (was {before}).")
                    prompt = build_prompt(feature, config, language, items, fmt)
                    continue
                raise
            if not response.content.strip() and empty_retries == 0:
                empty_retries += 1
                continue
            if cache is not None and settings.use_cache and response.content.strip():
                cache.put(key, prompt.hash(), response)
        return read_answer(feature, prompt, response, items, note, seconds=time.monotonic() - started)


def prepare_prompt(settings: LlmSettings, feature: Feature, config: str, language: str,
                   evidence: list[Evidence] | tuple[Evidence, ...], fmt: str) -> tuple[Prompt, list[Evidence], str]:
    """The prompt the model is first sent, the evidence that fits in it, and a note if some was dropped.

    Shared by :func:`ask` and the batch-file writer, so a batch line asks exactly what the online
    path asks first (the online path may still shrink the evidence if a server says it is too long).
    """
    items, note = fit_to_context(feature, config, language, list(evidence), fmt, settings)
    return build_prompt(feature, config, language, items, fmt), items, note


def read_answer(feature: Feature, prompt: Prompt, response: ChatResponse, items: list[Evidence] | tuple[Evidence, ...],
                note: str = "", *, seconds: float = 0.0) -> AskOutcome:
    """Parse a reply and flag citations of paragraphs that address the model (online and batch answers alike)."""
    parsed = parse_answer(response.content, feature, len(items))
    outcome = AskOutcome(prompt=prompt, response=response, parsed=parsed, evidence=tuple(items),
                         evidence_tokens=sum(estimate_tokens(e.text) for e in items), note=note, seconds=seconds)
    outcome.flags = injection_flags(items, parsed.cited_numbers)
    return outcome


def answer_format(settings: LlmSettings) -> str:
    """The answer format to ask for: the configured one, or JSON schema unless this server refused it."""
    s = settings
    if s.answer_format in ("json_schema", "conclusion"):
        return s.answer_format
    with _FORMAT_LOCK:
        refused = (s.public_base_url(), s.model) in _FORMAT_REFUSED
    return "conclusion" if refused else "json_schema"


def _answer_format(client: LlmClient) -> str:
    return answer_format(client.settings)


def fit_to_context(feature: Feature, config: str, language: str, items: list[Evidence], fmt: str,
                   settings: LlmSettings | LlmClient) -> tuple[list[Evidence], str]:
    """Drop the lowest-ranked paragraphs until the prompt fits the model's context window."""
    s = settings.settings if isinstance(settings, LlmClient) else settings
    window = s.context_window()
    room = int(window * 0.95) - s.max_output_tokens
    total = len(items)
    bare = estimate_tokens(build_prompt(feature, config, language, [], fmt).text())
    if bare > room:
        raise LlmError(
            f"Even without paragraphs the prompt (~{bare:,} tokens) does not fit model {s.model!r} "
            f"({window:,} tokens of context).",
            "Choose a model with a longer context or set its context size in the settings.",
            kind=ErrorKind.CONTEXT_LENGTH)
    used = bare
    kept: list[Evidence] = []
    for e in items:
        cost = estimate_tokens(e.text) + 12
        if used + cost > room:
            break
        kept.append(e)
        used += cost
    if len(kept) == total:
        return items, ""
    return kept, (f"Evidence shrunk to fit the model's context ({window:,} tokens): sent the top {len(kept)} "
                  f"of {total} paragraphs.")


def injection_flags(items: list[Evidence] | tuple[Evidence, ...], cited: list[int]) -> list[Flag]:
    """Flag cited paragraphs whose text tries to instruct the model."""
    by_number = {e.number: e for e in items}
    flags = []
    for n in cited:
        e = by_number.get(n)
        if e is not None and looks_like_instruction(e.text):
            flags.append(Flag("prompt_injection",
                              f"The answer relies on paragraph {n} (page {e.page_label or '?'}), whose text "
                              "addresses the model with instructions; check the value by hand.", e.paragraph_id))
    return flags


def forget_format_refusals() -> None:
    """Forget which servers refused JSON-schema answers.

    The memory is per process and keyed by server and model; the tests' fixture calls this so that
    one test's refusing server does not decide the answer format of the next test's server.
    """
    with _FORMAT_LOCK:
        _FORMAT_REFUSED.clear()
