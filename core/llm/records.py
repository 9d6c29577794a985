"""Plain records of the classification area: what was asked, answered, cited and reviewed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ValueRecord:
    """One stored value; ``code`` is None for "Not enough information"."""

    feature_id: str
    code: str | None
    label: str


@dataclass(frozen=True)
class EvidenceRecord:
    """A paragraph that was in the prompt: its rank from retrieval, number in the prompt, citation."""

    paragraph_id: int | None
    rank: int
    prompt_number: int
    page_label: str
    score: float | None
    cited: bool


@dataclass(frozen=True)
class Flag:
    """Something a reviewer should look at (e.g. the model cited a paragraph that gives it orders)."""

    kind: str
    message: str
    paragraph_id: int | None = None


@dataclass
class Classification:
    """A stored classification (``id`` is None only for results that were not stored, e.g. benchmarks)."""

    id: int | None
    created_at: str
    feature_id: str
    feature_name: str
    config: str
    language: str
    model: str
    base_url: str
    values: list[ValueRecord]
    reasoning: str
    raw_answer: str
    status: str  # ok | no_value | incomplete
    problem: str | None
    flags: list[Flag]
    evidence: list[EvidenceRecord]
    prompt_hash: str
    prompt_tokens: int
    completion_tokens: int
    evidence_tokens: int
    cost_usd: float | None
    seconds: float
    cached: bool
    answer_format: str
    retrieval_settings: dict = field(default_factory=dict)
    evidence_note: str = ""
    retrieval_run_id: int | None = None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cited(self) -> list[EvidenceRecord]:
        return [e for e in self.evidence if e.cited]

    def to_json(self) -> dict:
        """The shape printed by ``main.py classify --json`` (plus audit fields)."""
        return {
            "id": self.id,
            "feature": self.feature_id,
            "values": [{"feature_id": v.feature_id, "code": v.code, "label": v.label} for v in self.values],
            "reasoning": self.reasoning,
            "evidence": [{"paragraph_id": e.paragraph_id, "page_label": e.page_label, "rank": e.rank,
                          "number": e.prompt_number, "cited": e.cited} for e in self.evidence],
            "model": self.model,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens, "total": self.tokens,
                       "evidence": self.evidence_tokens},
            "cost_usd": self.cost_usd,
            "seconds": round(self.seconds, 3),
            "cached": self.cached,
            "config": self.config,
            "status": self.status,
            "problem": self.problem,
            "flags": [{"kind": f.kind, "message": f.message, "paragraph_id": f.paragraph_id} for f in self.flags],
            "evidence_note": self.evidence_note,
            "prompt_hash": self.prompt_hash,
        }


@dataclass(frozen=True)
class Review:
    """A linguist's decision about a classification: accept it, override a value, or add a note."""

    id: int
    classification_id: int
    created_at: str
    reviewer: str
    action: str  # accept | override | note
    feature_id: str | None
    code: str | None
    label: str | None
    note: str | None
