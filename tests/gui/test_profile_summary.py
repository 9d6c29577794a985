"""The profile dock's words without Qt: the status filter from core's statuses, counts, summary, estimate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from core.profile import Estimate
from core.profile import entries as profile_entries
from core.records import decisions as records
from gui.profile.profile_summary import (
    ALL,
    FILTER_KEYS,
    NOT_CODED,
    UNCODED,
    estimate_text,
    status_choices,
    statuses_of,
    summary_line,
)

REPO = Path(__file__).resolve().parents[2]


def test_the_module_imports_no_qt() -> None:
    code = "import sys, gui.profile.profile_summary; sys.exit('PySide6' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_the_filter_holds_every_status_of_core_with_the_coders_first() -> None:
    assert set(profile_entries.STATUSES) | {ALL, UNCODED} == set(FILTER_KEYS)
    assert FILTER_KEYS[:6] == (ALL, records.CODED, records.ACCEPTED, records.OVERRIDDEN, records.UNKNOWN, records.NOTE)
    # the dock's own "not coded" rows (the set's features nothing happened to) belong to "not coded yet" only
    assert statuses_of(UNCODED) == set(profile_entries.STATUSES) - set(records.VALUE_STATUSES) | {NOT_CODED}
    assert statuses_of(ALL) == frozenset() and statuses_of("coded") == {"coded"}


def test_each_choice_counts_its_rows() -> None:
    rows = ["coded"] * 12 + ["unknown"] * 2 + ["predicted", "evidence only", "note"]
    labels = {c.key: c.label for c in status_choices(rows)}
    assert labels[ALL] == "All features (17)" and labels["coded"] == "coded (12)"
    assert labels["unknown"] == 'unknown "?" (2)' and labels[UNCODED] == "not coded yet (3)"
    assert labels["accepted"] == "accepted (0)"  # listed all the same: the person learns the status exists
    assert all(c.tooltip for c in status_choices([]))
    with_untouched = {c.key: c.label for c in status_choices(rows + [NOT_CODED] * 185)}
    # "All features" lists every feature of the set, the 185 nobody coded too (it said "All statuses (17)")
    assert with_untouched[UNCODED] == "not coded yet (188)" and with_untouched[ALL] == "All features (202)"


def test_the_summary_counts_in_the_filters_order() -> None:
    entries = [SimpleNamespace(status=s) for s in ("predicted", "coded", "unknown", "coded")]
    agreement = SimpleNamespace(rate=0.5, agreed=1, compared=2)
    assert summary_line(entries, agreement) == ("4 values · 2 coded · 1 unknown · 1 predicted · "
                                                "agreement with the databases: 1/2 (50%)")
    assert summary_line([], None) == "0 values"


def test_a_price_is_quoted_only_for_a_hosted_model_that_is_set_up() -> None:
    hosted = Estimate(4, 26_099, 1_600, 0.08, "gpt-4o-mini", local=False)
    assert estimate_text(hosted, 4, retrieval_only=False, model_ready=True).endswith("about $0.08")
    offline = estimate_text(hosted, 4, retrieval_only=False, model_ready=False)
    assert offline.startswith("Before starting: 4 feature(s), about 27,699 tokens (26,099 in, 1,600 out).")
    assert "$" not in offline and "No model is set up" in offline
    local = Estimate(4, 26_099, 1_600, 0.0, "qwen", local=True)
    assert "$" not in estimate_text(local, 4, retrieval_only=False, model_ready=True)
    assert estimate_text(hosted, 2, retrieval_only=True, model_ready=False, note="Finished. ") == (
        "Finished. 2 feature(s) to retrieve; no model is asked.")
    done = Estimate(0, 0, 0, 0.0, "gpt-4o-mini")
    assert estimate_text(done, 0, retrieval_only=False, model_ready=False).endswith("every feature of this set is "
                                                                                  "finished.")
