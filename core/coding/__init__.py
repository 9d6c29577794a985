"""Coding a language by hand: the linguist's decisions, pinned evidence and the coding pass (Qt-free).

Public API: decisions :func:`code`, :func:`accept`, :func:`override`, :func:`add_note`, :func:`pin`,
:func:`unpin`, :func:`undo`, :func:`current`, :func:`history`, :func:`make_pins`; records
:class:`Decision`, :class:`Pin` and the statuses; the pass :class:`CodingPass`,
:func:`ordered_features`, :data:`FILTERS`; typed values :func:`resolve_value`, :func:`value_choices`
(digit keys of a coding pass); look-ahead :class:`EvidenceCache` and :func:`pinned_first`.
"""

from core.coding.coding_pass import (
                                     ALL,
                                     DISAGREE,
                                     FILTERS,
                                     PREDICTED,
                                     UNCODED,
                                     CodingPass,
                                     Counter,
                                     FeatureState,
                                     ordered_features,
)
from core.coding.decisions import (
                                     accept,
                                     add_note,
                                     code,
                                     current,
                                     current_pins,
                                     history,
                                     make_pins,
                                     override,
                                     pin,
                                     undo,
                                     unpin,
)
from core.coding.lookahead import EvidenceCache, Prefetched, pinned_first
from core.coding.values import NOT_ENOUGH_INFORMATION, codable_feature, coding_ids, resolve_value, value_choices
from core.records.decisions import (
                                     ACCEPTED,
                                     CODED,
                                     NOTE,
                                     OVERRIDDEN,
                                     UNKNOWN,
                                     UNKNOWN_CODE,
                                     VALUE_STATUSES,
                                     Decision,
                                     Pin,
)

__all__ = [
    "ACCEPTED", "ALL", "CODED", "DISAGREE", "FILTERS", "NOTE", "NOT_ENOUGH_INFORMATION", "OVERRIDDEN", "PREDICTED",
    "UNCODED", "UNKNOWN", "UNKNOWN_CODE", "VALUE_STATUSES", "CodingPass", "Counter", "Decision", "EvidenceCache",
    "FeatureState", "Pin", "Prefetched", "pinned_first",
    "accept", "add_note", "codable_feature", "code", "coding_ids", "current", "current_pins", "history", "make_pins",
    "ordered_features", "override", "pin", "resolve_value", "undo", "unpin", "value_choices",
]
