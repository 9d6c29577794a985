"""Which upcoming features' candidates embed first when the coder moves faster than the book embeds (issue 28)."""

from __future__ import annotations

from core.retrieval.schedule import on_time


def test_a_feature_that_cannot_be_done_before_the_coder_leaves_it_is_passed_over() -> None:
    candidates = {"on screen": [1, 2, 3, 4, 5, 6], "next": [6, 7], "then": [8, 9, 10]}
    pending = set(range(1, 11))
    # 2 paragraphs a second: the six on screen take 3 s, but the coder leaves in 0.8 s; the next (1 new
    # paragraph, 6 is its own now) and the one after fit
    assert on_time(candidates, pending, {"on screen": 0.8, "next": 1.8, "then": 2.8}, 2.0) == ["next", "then"]
    # time enough for all of them: nearest first, as without a schedule
    assert on_time(candidates, pending, {"on screen": 5.0, "next": 6.0, "then": 7.0}, 2.0) == list(candidates)
    # a feature without an expected leaving time is always kept; one with nothing pending costs nothing
    assert on_time(candidates, pending, {"next": 0.1}, 2.0) == ["on screen", "then"]
    assert on_time(candidates, pending - {6, 7}, {"on screen": 0.8, "next": 0.0}, 2.0) == ["next", "then"]
