"""``classify``: retrieve the evidence, ask the model, store everything, return the result.

The function a GUI worker or the CLI calls.  It never stores a value outside the feature's set:
an answer that cannot be read is stored with status ``no_value`` and its raw text, so the
reviewer sees what the model said and nothing wrong lands in an export.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from core.catalog.model import Feature
from core.llm.ask import AskOutcome, ask
from core.llm.cache import ProjectCache
from core.llm.client import LlmClient
from core.llm.features import feature_of
from core.llm.prompts import CONFIGS, Evidence
from core.llm.settings import LlmSettings
from core.progress import Progress, null_progress
from core.records.classifications import Classification, ValueRecord
from core.retrieval.settings import RetrievalSettings
from core.store.classifications import save_classification
from core.store.database import ProjectDatabase
from core.store.repository import get_language, list_documents
from core.timestamps import now_iso


def classify(project: ProjectDatabase, feature: Feature, *, config: str = "rag",
             llm_settings: LlmSettings | None = None, retrieval_settings: RetrievalSettings | None = None,
             progress: Progress | None = None, evidence: list[Evidence] | None = None,
             client: LlmClient | None = None, language: str | None = None,
             stored: Callable[[Classification], object] | None = None) -> Classification:
    """Classify one feature of the project's grammar and store the result.

    ``feature`` is the catalog's Feature (:func:`core.llm.features.feature_of` finds it by id).  ``evidence`` overrides
    retrieval (e.g. paragraphs the user picked); ``client`` lets callers share one client (and
    its concurrency bound) across many calls.  Raises :class:`~core.llm.errors.LlmError` when no
    answer could be obtained; nothing is stored then.

    ``stored`` runs inside the transaction that stores the answer (its ``id`` set): what a caller ties
    to it (a profile job's tick, the window's claim on it, :mod:`core.store.claims`) commits with it,
    so no other connection ever sees the answer without it.
    """
    from core.errors import GrammarLensError
    from core.llm.evidence import retrieve_evidence

    if config not in CONFIGS:
        raise GrammarLensError(f"Unknown configuration {config!r}.", f"Use one of: {', '.join(CONFIGS)}.")
    progress = progress or null_progress()
    settings = llm_settings or (client.settings if client else LlmSettings())
    feature = feature_of(feature)  # refuses, before any work, a feature with no values to choose from
    client = client or LlmClient(settings)  # fails fast on a missing key, before retrieval work
    language = language if language is not None else _language_name(project)
    progress.step(0, 3, "retrieving evidence")
    retrieved_settings: dict = {}
    run_id = None
    if config == "baseline":
        items: list[Evidence] = []
    elif evidence is not None:
        items = [Evidence(number=i + 1, rank=e.rank, text=e.text, page_label=e.page_label,
                          paragraph_id=e.paragraph_id, score=e.score, ocr_confidence=e.ocr_confidence)
                 for i, e in enumerate(evidence)]
        retrieved_settings = {"method": "given"}
    else:
        retrieved = retrieve_evidence(project, feature, retrieval_settings, progress=None)
        items, retrieved_settings, run_id = retrieved.evidence, retrieved.settings, retrieved.run_id
    progress.step(1, 3, f"asking {settings.model}")
    outcome = ask(client, feature, config, language, items, cache=ProjectCache(project))
    progress.step(2, 3, "storing")
    result = classification_of(feature, config, language, settings, items, outcome, retrieved_settings, run_id)
    with project.transaction():
        save_classification(project, result, settings.to_public_dict())
        if stored is not None:
            stored(result)
    progress.step(3, 3, "done")
    return result


def classification_of(feature: Feature, config: str, language: str, settings: LlmSettings, items: list[Evidence],
                      outcome: AskOutcome, retrieved_settings: dict, run_id: int | None) -> Classification:
    """The record stored for an answer: the same for an online answer and one imported from a batch file.

    ``items`` is the evidence retrieved (before any was dropped to fit the context); ``outcome``
    holds what was sent and the parsed reply.  A reply without a value of the set is kept with
    status ``no_value`` and its raw text, never with an out-of-set value.
    """
    parsed = outcome.parsed
    cited = set(parsed.cited_numbers)
    values = [ValueRecord(v.feature_id, v.code, v.label) for v in parsed.values]
    status = "ok" if parsed.problem is None and values else ("incomplete" if values else "no_value")
    sent = {e.number for e in outcome.evidence}
    dropped = [e for e in items if e.number not in sent]
    stored_settings = dict(retrieved_settings, dropped_for_context=len(dropped)) if dropped else retrieved_settings
    return Classification(
        id=None, created_at=now_iso(), feature_id=feature.id, feature_name=feature.name, config=config,
        language=language,
        model=settings.model, base_url=settings.public_base_url(), values=values, reasoning=parsed.reasoning,
        raw_answer=outcome.response.content, status=status, problem=parsed.problem, flags=outcome.flags,
        evidence=[dataclasses.replace(e, cited=e.number in cited) for e in outcome.evidence],
        prompt_hash=outcome.prompt.hash(), prompt_tokens=outcome.response.prompt_tokens,
        completion_tokens=outcome.response.completion_tokens, evidence_tokens=outcome.evidence_tokens,
        cost_usd=outcome.response.cost_usd, seconds=outcome.seconds, cached=outcome.response.cached,
        answer_format=outcome.prompt.answer_format,
        retrieval_settings=stored_settings,
        evidence_note=outcome.note, retrieval_run_id=run_id,
    )


def language_name(project: ProjectDatabase) -> str:
    """The language named in prompts: the project's language, else the first grammar's title."""
    return _language_name(project)


def _language_name(project: ProjectDatabase) -> str:
    language = get_language(project)
    if language and language.name:
        return language.name
    docs = list_documents(project)
    return docs[0].title if docs and docs[0].title else ""
