"""`bench gui`'s coding-pass figure: time from "next feature" to its evidence on screen.

Why this number: in a coding pass the linguist moves on every few seconds; if the next feature's
evidence takes a retrieval round trip (tens of milliseconds with BM25 alone, a second or more
with an embedding reranker) every step waits.  With the look-ahead the next features are retrieved
while the current one is read, so a step should show its evidence in under 100 ms.

Measured per step, after the look-ahead has finished its work: from the call that moves the pass
(what the → key does) until the evidence list is filled *and* the page of the best paragraph is
rendered in the PDF view.  The same steps without look-ahead (a retrieval per step) are measured
for comparison.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

STEPS = 8


def _step(app: Any, window: Any, wait: Any) -> float:
    """Move the pass one feature on; seconds until the evidence and its page are shown."""
    done: list[float] = []
    view = window.pdf_view

    def shown() -> bool:
        state = window.state
        if not state.evidence_known:
            return False
        row = state.best_row()
        if row < 0:
            return True  # nothing found: the empty list is what is shown
        page = state.ordered_hits()[row].paragraph.rects[0].pdf_page
        return window.evidence_panel.model.rowCount() > 0 and view.renderer.is_rendered(page)

    def check(*_args: object) -> None:
        if not done and shown():
            done.append(time.perf_counter())

    view.pageRendered.connect(check)
    window.features.retrievalFinished.connect(check)
    started = time.perf_counter()
    window.coding.passes.next()
    check()
    wait(app, lambda: bool(done), 60)
    view.pageRendered.disconnect(check)
    window.features.retrievalFinished.disconnect(check)
    return (done[0] if done else float("nan")) - started


def measure_next_feature(app: Any, window: Any, wait: Any, feature_set: str = "wals", steps: int = STEPS) -> dict:
    """Median and max milliseconds per "next feature", with and without look-ahead."""
    coding = window.coding
    results: dict = {"feature_set": feature_set, "steps": steps}
    for name, enabled in (("lookahead", True), ("no_lookahead", False)):
        coding.passes.lookahead.enabled = enabled
        coding.passes.lookahead.set_project(window.state.project_path)  # start empty: nothing retrieved by chance
        coding.passes.start_pass(feature_set)
        times = []
        for _ in range(steps):
            if enabled:
                wait(app, lambda: not coding.passes.lookahead.busy, 300)  # the look-ahead has run
            times.append(_step(app, window, wait) * 1000)
        results[name] = {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1),
                         "runs_ms": [round(t, 1) for t in times]}
        coding.passes.stop_pass()
    coding.passes.lookahead.enabled = True
    return results
