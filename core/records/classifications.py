"""Plain records of the classification area: what was asked, answered, cited and reviewed.

Evidence has two shapes, one per side of the prompt (see README, "One shape per concept"):

* :class:`core.retrieval.Hit` -- a ranked paragraph (rank, score, the :class:`~core.models.Paragraph`,
  the signals behind the score).  Retrieval returns hits, stored runs load as hits, and the GUI's
  evidence list shows hits, also for the evidence of a stored classification
  (:func:`core.llm.evidence.evidence_hits`).
* :class:`Evidence` -- a hit numbered in a prompt (``Evidence.from_hit``); after the answer it says
  whether the model cited it, and it is stored with the classification exactly so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from core.models import LOW_OCR_CONFIDENCE


@dataclass(frozen=True)
class ValueRecord:
    """One stored value; ``code`` is None for "Not enough information"."""

    feature_id: str
    code: str | None
    label: str


class ModelValue(NamedTuple):
    """The newest model answer's value for one feature: which answer, and its code and label.

    A record rather than a bare ``(id, code, label)`` tuple, so the coding acts read ``model.code``
    where they read ``model[1]``.
    """

    classification_id: int
    code: str | None
    label: str


@dataclass(frozen=True, slots=True)  # slots: a batch import holds tens of thousands
class Evidence:
    """A grammar paragraph offered to the model, and, once answered, whether the model cited it.

    ``number`` is its 1-based number in the prompt, ``rank`` its rank in retrieval.  Read back from
    a project, ``text`` is the paragraph's current text ("" if the paragraph is gone).
    """

    number: int
    rank: int
    text: str
    page_label: str = ""
    paragraph_id: int | None = None
    score: float | None = None
    cited: bool = False
    ocr_confidence: float | None = None  # read by OCR: its mean word confidence (the prompt marks a low one)

    @property
    def low_confidence(self) -> bool:
        return self.ocr_confidence is not None and self.ocr_confidence < LOW_OCR_CONFIDENCE

    @classmethod
    def from_hit(cls, hit: Any, number: int) -> Evidence:
        """Number a retrieval :class:`~core.retrieval.Hit` for the prompt."""
        p = hit.paragraph
        return cls(number=number, rank=int(hit.rank), text=p.text, page_label=p.page_label, paragraph_id=p.id,
                   score=float(hit.score), ocr_confidence=p.ocr_confidence)


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
    evidence: list[Evidence]
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
    def cited(self) -> list[Evidence]:
        return [e for e in self.evidence if e.cited]

    def to_json(self) -> dict:
        """The shape printed by ``main.py classify --json`` (plus audit fields)."""
        return {
            "id": self.id,
            "feature": self.feature_id,
            "values": [{"feature_id": v.feature_id, "code": v.code, "label": v.label} for v in self.values],
            "reasoning": self.reasoning,
            "evidence": [{"paragraph_id": e.paragraph_id, "page_label": e.page_label, "rank": e.rank,
                          "number": e.number, "cited": e.cited} for e in self.evidence],
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
