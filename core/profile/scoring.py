"""Scoring language profiles against a database's values (``bench profile``).

A pure function over values: gold values of (language, feature) pairs on one side, the values a
project holds on the other, wherever they came from (an online profile run, answers imported
from a batch file, a coder's decisions).  So the same scorer serves ``bench profile`` and
``profile --batch-in``, and it is tested without a model.

Metrics (the gold file's README asks for them because ~73 % of Grambank's binary values are 0):

* accuracy: a prediction is right when it equals the gold code; "Not enough information" and
  unreadable or missing answers are wrong;
* macro-F1: the mean F1 of the gold classes (0 and 1); a missing answer is a miss of its class;
* MCC: Matthews correlation over the confusion of gold and predicted classes, with "?" (no value)
  as a class of its own (Gorodkin's multiclass form, as core.llm.metrics);
* the always-"absent" baseline (every prediction 0) beside each figure, and the share of "?".
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from core.errors import GrammarLensError
from core.llm.metrics import matthews, per_class_f1

NO_VALUE = "?"  # not enough information, unreadable or missing
BASELINE_CODE = "0"  # Grambank "absent", the majority class


@dataclass(frozen=True)
class GoldValue:
    """One database value of the benchmark: a language (by Glottocode) and a feature's code."""

    file: str
    language: str
    glottocode: str
    feature_id: str
    code: str


def load_gold(path: str | Path) -> list[GoldValue]:
    """Read a gold table with columns file, language, glottocode, feature, value (bench/profile's format)."""
    path = Path(path)
    if not path.exists():
        raise GrammarLensError(f"The gold file {path} does not exist.",
                               "Use ../shared/bench/profile/grambank_gold.csv or a file with its columns.")
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"file", "language", "glottocode", "feature", "value"} - set(reader.fieldnames or ())
        if missing:
            raise GrammarLensError(f"{path} lacks the columns {', '.join(sorted(missing))}.",
                                   "The gold file needs: file, language, glottocode, feature, value.")
        return [GoldValue(r["file"], r["language"], r["glottocode"], r["feature"], str(r["value"]).strip())
                for r in reader if str(r["value"]).strip()]


@dataclass(frozen=True)
class Cell:
    """Figures of one slice (overall, one language or one feature)."""

    n: int
    accuracy: float
    macro_f1: float
    mcc: float
    no_value_share: float
    baseline_accuracy: float
    baseline_macro_f1: float
    baseline_mcc: float


def score_cell(gold: list[str], predicted: list[str]) -> Cell:
    """Figures for paired gold and predicted codes (``NO_VALUE`` for no answer)."""
    n = len(gold)
    if n == 0:
        return Cell(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    baseline = [BASELINE_CODE] * n
    return Cell(
        n=n,
        accuracy=sum(g == p for g, p in zip(gold, predicted, strict=True)) / n,
        macro_f1=_macro_f1(gold, predicted),
        mcc=matthews(gold, predicted),
        no_value_share=sum(p == NO_VALUE for p in predicted) / n,
        baseline_accuracy=sum(g == BASELINE_CODE for g in gold) / n,
        baseline_macro_f1=_macro_f1(gold, baseline),
        baseline_mcc=matthews(gold, baseline),
    )


def _macro_f1(gold: list[str], predicted: list[str]) -> float:
    """Mean F1 over the classes of the gold values (a "?" prediction never earns credit)."""
    classes = sorted(set(gold))
    per = per_class_f1(gold, predicted)
    return sum(per[c][0] for c in classes) / len(classes) if classes else 0.0


@dataclass
class ProfileScores:
    overall: Cell
    by_language: dict[str, Cell] = field(default_factory=dict)
    by_feature: dict[str, Cell] = field(default_factory=dict)
    missing: int = 0  # gold pairs without any stored value (counted as "?")

    def to_json(self) -> dict:
        return {"overall": asdict(self.overall), "missing": self.missing,
                "by_language": {k: asdict(v) for k, v in self.by_language.items()},
                "by_feature": {k: asdict(v) for k, v in self.by_feature.items()}}


def score_profiles(gold: Iterable[GoldValue], predicted: Mapping[tuple[str, str], str | None]) -> ProfileScores:
    """Score stored values against gold ones.

    ``predicted`` maps (glottocode, feature id) to the stored code, or None / "?" when the project
    holds no value (not enough information, an unreadable answer, never asked).
    """
    rows = list(gold)
    pairs: list[tuple[GoldValue, str]] = []
    missing = 0
    for g in rows:
        key = (g.glottocode, g.feature_id)
        if key not in predicted:
            missing += 1
        code = predicted.get(key)
        pairs.append((g, NO_VALUE if code in (None, "", NO_VALUE) else str(code)))
    by_language: dict[str, list] = defaultdict(list)
    by_feature: dict[str, list] = defaultdict(list)
    for g, p in pairs:
        by_language[g.language].append((g.code, p))
        by_feature[g.feature_id].append((g.code, p))

    def cell(items: list[tuple[str, str]]) -> Cell:
        return score_cell([g for g, _ in items], [p for _, p in items])

    return ProfileScores(
        overall=cell([(g.code, p) for g, p in pairs]),
        by_language={k: cell(v) for k, v in by_language.items()},
        by_feature={k: cell(v) for k, v in sorted(by_feature.items())},
        missing=missing,
    )


def project_codes(project, feature_ids: Iterable[str] | None = None) -> dict[str, str | None]:
    """Feature id -> the code the project holds (None for no value), from its profile entries.

    The profile is the one place that decides a project's value (latest classification, then any
    review or coder's decision), so online runs, imported batch answers and hand coding all
    score the same way.  A multi-label run (116A*) contributes one code per Grambank part.
    """
    from core.profile.entries import build_profile

    out: dict[str, str | None] = {}
    for entry in build_profile(project, list(feature_ids) if feature_ids is not None else None):
        out[entry.feature_id] = entry.code if entry.has_value else None
    return out
