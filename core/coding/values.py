"""Which features can be coded and what a typed value means: a code, a label, or "?".

A multi-label feature (the paper's polar-question complex 116A*) is never coded as a whole: each of
its seven Grambank parts (GB257...) is a feature of its own, as the databases code them.
"""

from __future__ import annotations

from core.catalog import load_catalog
from core.catalog.model import Feature
from core.errors import GrammarLensError
from core.records.decisions import UNKNOWN_CODE

NOT_ENOUGH_INFORMATION = "Not enough information"  # the label a "?" is shown and stored with
_UNKNOWN_SPELLINGS = {UNKNOWN_CODE, "not enough information", "unknown", "nei"}


def codable_feature(feature_id: str) -> Feature:
    """The catalog feature a decision is stored under; refuses a multi-label parent with its parts as the hint."""
    feature = load_catalog().get(feature_id)  # raises UnknownFeature with a hint
    if feature.multi_label:
        raise GrammarLensError(
            f"{feature.id} is coded as its {len(feature.multi_label)} Grambank parts, not as a whole.",
            f"Code each part: {', '.join(feature.multi_label)} (e.g. --feature {feature.multi_label[0]} --value 1).")
    return feature


def coding_ids(feature_ids: list[str]) -> list[str]:
    """Feature ids as coded: a multi-label feature replaced by its parts, duplicates dropped, order kept."""
    catalog = load_catalog()
    out: list[str] = []
    for fid in feature_ids:
        feature = catalog.get(fid)
        out.extend(feature.multi_label or (feature.id,))
    return list(dict.fromkeys(out))


def resolve_value(feature: Feature, value: str) -> tuple[str, str]:
    """(code, label) for a typed value: a code or label of ``feature`` (any case), or "?".

    A value of another feature, or of none, is refused with the feature's own values as the hint.
    """
    text = " ".join((value or "").split())
    if text.casefold() in _UNKNOWN_SPELLINGS:
        return UNKNOWN_CODE, NOT_ENOUGH_INFORMATION
    for code, label in feature.values:
        if text == code:
            return code, label
    for code, label in feature.values:
        if text.casefold() == label.casefold():
            return code, label
    options = "; ".join(f"{code} = {label}" for code, label in feature.values)
    elsewhere = _features_with_label(text, feature.id)
    where = f" (it is a value of {', '.join(elsewhere[:3])})" if elsewhere else ""
    raise GrammarLensError(f"{value!r} is not a value of {feature.id} {feature.name}{where}.",
                           f"Give a code or label of {feature.id}: {options}; or ? for not enough information.")


def _features_with_label(text: str, other_than: str) -> list[str]:
    if not text or text.isdigit():
        return []
    key = text.casefold()
    return [f.id for f in load_catalog().features if f.id != other_than
            and any(label.casefold() == key for _c, label in f.values)]


def value_choices(feature_id: str) -> list[tuple[str, str, str]]:
    """(key, code, label) for each value a coder can type, "?" last: what digit keys choose in a coding pass.

    The key is the code itself when every code is one digit (WALS 81A: 1 = SOV ... 7; Grambank: 0 = absent,
    1 = present), so a key always means what the databases' codes mean; otherwise the n-th value gets
    key n (1-9).  Values past the ninth have no key ("") and are chosen from the list.
    """
    feature = codable_feature(feature_id)
    codes = [code for code, _label in feature.values]
    by_code = all(len(c) == 1 and c.isdigit() for c in codes) and len(set(codes)) == len(codes)
    out = []
    for n, (code, label) in enumerate(feature.values, start=1):
        key = code if by_code else (str(n) if n <= 9 else "")
        out.append((key, code, label))
    out.append((UNKNOWN_CODE, UNKNOWN_CODE, NOT_ENOUGH_INFORMATION))
    return out
