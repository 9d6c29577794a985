"""Storing one imported answer in its project, exactly as an online answer is stored.

The prompt is rebuilt from the project as it is now and must hash to the written request's: a
re-ingested grammar or a renamed language no longer matches, and that answer is refused.  A
matching answer becomes a classification, a response-cache entry and a ticked profile job item.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import ProjectError
from core.llm.ask import read_answer
from core.llm.batch_lines import one_line
from core.llm.cache import ProjectCache, cache_key
from core.llm.classification import classification_of
from core.llm.client import read_chat_response
from core.llm.errors import LlmError
from core.llm.features import feature_of
from core.llm.prompts import build_prompt
from core.llm.settings import LlmSettings
from core.profile.batch import load_job
from core.profile.batch_files.evidence import with_texts
from core.profile.batch_files.reports import LineProblem
from core.records.vocabulary import JobState
from core.store import open_project
from core.store.backups import make_backup
from core.store.batch_requests import BatchRequest, mark_imported
from core.store.claims import AnswerClaims
from core.store.classifications import save_classification
from core.store.database import ProjectDatabase
from core.store.profile_jobs import set_item, set_job_state

BATCH_PRICE_FACTOR = 0.5  # OpenAI's Batch API charges half the online price
OPENAI_URL = "https://api.openai.com/"
_LLM_FIELDS = frozenset(f.name for f in dataclasses.fields(LlmSettings))


@dataclass
class ProjectSession:
    """An open project during an import: its connection and per-project lookups."""

    path: Path
    project: ProjectDatabase
    language: str
    cache: ProjectCache
    warnings: list[str] = field(default_factory=list)  # the report's list: a backup that failed is told there
    jobs: set[int] = field(default_factory=set)
    backed_up: bool = False
    claims: AnswerClaims | None = None  # the window's import: each answer is claimed as it is stored
    _settings: dict[str, LlmSettings] = field(default_factory=dict)

    def back_up(self) -> None:
        """Keep the project as it was before this import, once, just before its first answer is stored.

        Taken then, and not on opening, so that an import storing nothing here (a file of another
        batch, one imported before, stale lines) leaves no backup behind.  It is copied through a
        read-only connection of its own: SQLite's backup API cannot read through a connection in a
        write transaction (it waited forever on this chunk's), and a reader sees the last commit,
        which holds no answer of this import yet.  A backup that cannot be written does not stop the
        import: it becomes a warning of the report.
        """
        if self.backed_up:
            return
        self.backed_up = True
        try:
            with open_project(self.path, readonly=True, backup=False) as reader:
                make_backup(reader, "before-import")
        except ProjectError as exc:
            self.warnings.append(f"No backup of {self.path.name} could be taken before the import, which went on: "
                                 f"{one_line(exc.message, 400).rstrip('.')}. {exc.hint}".strip())

    def settings_for(self, public: dict) -> LlmSettings:
        """The LlmSettings a request was written with (one object per distinct settings)."""
        key = json.dumps(public, sort_keys=True)
        if key not in self._settings:
            self._settings[key] = LlmSettings(**{k: v for k, v in public.items() if k in _LLM_FIELDS})
        return self._settings[key]


def store_answer(number: int, body: dict, usage_read: bool, request: BatchRequest,
                 s: ProjectSession) -> LineProblem | None:
    """Rebuild the prompt, check its hash, read and store the answer.

    Returns a stale or error problem (nothing stored), or an unparsable or usage note (stored).
    """
    settings = s.settings_for(request.llm_settings)
    feature = feature_of(request.feature_id)
    items = with_texts(s.project, request.evidence, request.evidence_sent)
    sent = items[: request.evidence_sent] if items is not None else None
    prompt = None if sent is None else build_prompt(feature, request.config, s.language, sent, request.answer_format)
    if items is None or sent is None or prompt is None or prompt.hash() != request.prompt_hash:
        return LineProblem(number, "stale", f"{request.feature_id}: the prompt no longer matches {s.path.name} "
                                            "(grammar re-ingested or language renamed since the file was written); "
                                            "nothing stored", request.custom_id)
    try:
        response = read_chat_response(body, settings.model, local=settings.is_local())
    except LlmError as exc:
        return LineProblem(number, "error", f"{request.feature_id}: {one_line(exc.message).rstrip('.')}; "
                                            "nothing stored", request.custom_id)
    if not usage_read:
        response = dataclasses.replace(response, prompt_tokens=0, completion_tokens=0, cost_usd=None)
    elif response.cost_usd is not None and settings.public_base_url().startswith(OPENAI_URL):
        response = dataclasses.replace(response, cost_usd=response.cost_usd * BATCH_PRICE_FACTOR)
    outcome = read_answer(feature, prompt, response, sent, request.evidence_note)
    record = classification_of(feature, request.config, s.language, settings, items, outcome,
                               request.retrieval_settings, request.retrieval_run_id)
    s.back_up()  # before the project's first write of this import
    record = save_classification(s.project, record, settings.to_public_dict())
    assert record.id is not None  # set by save_classification
    if settings.use_cache and response.content.strip():
        s.cache.put(cache_key(settings, request.prompt_hash), request.prompt_hash, response)
    if request.job_id is not None:
        set_item(s.project, request.job_id, request.feature_id, JobState.DONE, classification_id=record.id)
        s.jobs.add(request.job_id)
    mark_imported(s.project, request.custom_id, record.id)
    if s.claims is not None:  # in the line's transaction, before any commit (see core.store.claims)
        s.claims.claim(s.path, record.id)
    if record.status == "no_value":
        return LineProblem(number, "unparsable", f"{request.feature_id}: the answer names no value of the set "
                                                 f"({one_line(record.problem)}); stored without a value, as online",
                           request.custom_id)
    if not usage_read:
        return LineProblem(number, "usage", f"{request.feature_id}: stored, but its token counts are unreadable "
                                            "(the cost is unknown)", request.custom_id)
    return None


def finish_jobs(s: ProjectSession) -> None:
    """Mark jobs whose every item is now answered as done, as a finished online run does."""
    for job_id in s.jobs:
        job = load_job(s.project, job_id)
        if not job.pending and job.state != JobState.DONE:
            set_job_state(s.project, job_id, JobState.DONE)
