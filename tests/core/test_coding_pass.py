"""The coding pass without Qt: working order, filters, the counter, next/previous/next uncoded, look-ahead."""

from __future__ import annotations

import pytest

from core import coding
from core.catalog import load_catalog
from core.coding import CodingPass, ordered_features
from core.errors import GrammarLensError
from core.llm import Evidence, classify
from core.llm.features import feature_of
from core.profile import ReferenceValue, save_feature_list
from core.store.repository import get_paragraphs

PAPER = ["81A", "49A", "GB107", "GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291"]


def test_order_of_the_sets() -> None:
    assert ordered_features(None, "paper") == PAPER  # 116A* stands for its seven Grambank parts
    grambank = ordered_features(None, "grambank")
    assert len(grambank) == 195 and len(set(grambank)) == 195
    catalog = load_catalog()
    ranks = [catalog.get(f).coding.get("order", 10**6) for f in grambank]
    assert ranks == sorted(ranks) and grambank[0] == "GB020"  # Grambank coders' working order (articles first)
    wals = ordered_features(None, "wals")
    assert len(wals) == 192 and wals[0] == "1A"


def test_a_saved_list_keeps_its_order(llm_project) -> None:
    save_feature_list(llm_project.project, "mine", ["GB107", "81A", "116A*"])
    assert ordered_features(llm_project.project, "mine") == ["GB107", "81A"] + PAPER[3:]


def test_filters_counter_and_navigation(llm_project, llm_server, llm_settings) -> None:
    project, ids = llm_project.project, llm_project.paragraph_ids
    llm_server.add_rule("verb-final", "SOV")
    paragraphs = get_paragraphs(project, [ids["word_order"]])
    classify(project, feature_of("81A"), llm_settings=llm_settings,
             evidence=[Evidence(number=1, rank=1, text=p.text, page_label=p.page_label, paragraph_id=p.id)
                       for p in paragraphs])
    coding.code(project, "GB107", "1")
    coding.code(project, "GB263", "?")
    coding.add_note(project, "GB257", "look at chapter 9")  # a note is not a value
    references = {"81A": ReferenceValue("WALS", "81A", "2", "SVO"),
                  "GB107": ReferenceValue("Grambank", "GB107", "1", "")}
    p = CodingPass.open(project, "paper", references=references)
    assert str(p.counter()) == "2 of 10 coded"
    assert p.items() == PAPER
    assert p.next(None) == "81A" and p.next("81A") == "49A" and p.previous("49A") == "81A"
    assert p.previous("81A") is None and p.next("GB291") is None
    assert p.next_uncoded("49A") == "GB257" and p.next_uncoded("GB291") == "81A"  # wraps around
    assert p.upcoming("GB107", 3) == ["GB257", "GB260", "GB262"]

    p.set_filter("uncoded")
    assert p.items() == [f for f in PAPER if f not in ("GB107", "GB263")]
    assert p.next("49A") == "GB257"  # GB107 is coded: skipped
    assert p.next("GB107") == "GB257"  # the current feature may itself be filtered out
    assert p.position("GB257") == (3, 8) and p.position("GB107") == (0, 8)
    p.set_filter("predicted")
    assert p.items() == ["81A"]  # the model answered it, nobody reviewed it
    p.set_filter("disagree")
    assert p.items() == ["81A"]  # the model's SOV against WALS's SVO; GB107 agrees
    with pytest.raises(GrammarLensError, match="Unknown filter"):
        p.set_filter("mine")

    # deciding moves the feature between filters once refreshed; the counter follows
    coding.code(project, "81A", "SVO")
    p.refresh(project, "81A")
    assert p.items() == [] and str(p.counter()) == "3 of 10 coded"
    p.set_filter("predicted")
    assert p.items() == []
    coding.undo(project, "81A")
    p.refresh(project, "81A")
    assert p.items() == ["81A"] and str(p.counter()) == "2 of 10 coded"


def test_everything_coded_means_no_next_uncoded(llm_project) -> None:
    project = llm_project.project
    save_feature_list(project, "two", ["81A", "GB107"])
    coding.code(project, "81A", "1")
    coding.code(project, "GB107", "0")
    p = CodingPass.open(project, "two", "uncoded")
    assert p.items() == [] and p.next_uncoded("81A") is None and p.upcoming("81A") == []
    assert str(p.counter()) == "2 of 2 coded"


def test_lookahead_fills_the_cache_for_the_next_features_and_pins_come_first(tmp_path) -> None:
    from core.coding import EvidenceCache
    from core.coding.lookahead import pinned_first, with_pinned
    from core.errors import Cancelled
    from core.ingest import ingest
    from core.progress import Progress
    from core.retrieval import RetrievalSettings
    from core.store import open_project
    from tests.fixtures_ingest import write_sample_book

    book = write_sample_book(tmp_path / "teshi.pdf")
    with open_project(tmp_path / "t.grammarlens", create=True) as project:
        ingest(project, book.path)
        p = CodingPass.open(project, "paper")
        cache = EvidenceCache(RetrievalSettings(reranker=None))
        ahead = p.upcoming("81A", 2)
        assert cache.prefetch(project, ahead) == ["49A", "GB107"] and cache.prefetch(project, ahead) == []
        assert cache.get("49A").hits and cache.get("81A") is None
        assert cache.hits(project, "81A").hits[0].paragraph.text.startswith("Teshi is a verb-final language")
        progress = Progress(lambda done, total, message: progress.cancel() if done >= 1 else None)
        with pytest.raises(Cancelled):
            cache.prefetch(project, ["GB257", "GB260", "GB262"], progress)
        assert cache.get("GB257") is not None and cache.get("GB262") is None  # stopped between features
        assert not cache.get("GB257").provisional and cache.missing(["GB257"]) == []

        hits = list(cache.get("81A").hits)
        preface = next(h for h in (cache.hits(project, "GB107").hits) if h.paragraph.id not in
                       {x.paragraph.id for x in hits})
        coding.pin(project, "81A", [hits[2].paragraph.id, preface.paragraph.id])
        pinned = [p.paragraph_id for p in coding.current_pins(project, "81A") if p.paragraph_id is not None]
        assert pinned == [hits[2].paragraph.id, preface.paragraph.id]
        listed = with_pinned(project, hits, pinned)
        assert len(listed) == len(hits) + 1 and listed[-1].paragraph.id == preface.paragraph.id
        assert (listed[-1].rank, listed[-1].score) == (0, 0.0)  # pinned although retrieval never found it
        ordered = pinned_first(listed, pinned)
        assert [h.paragraph.id for h in ordered[:2]] == [preface.paragraph.id, hits[2].paragraph.id]  # rank order
        assert [h.rank for h in ordered[2:]] == sorted(h.rank for h in hits if h.paragraph.id not in pinned)
        assert with_pinned(project, listed, pinned[:1]) == hits  # unpinned: the never-retrieved one leaves


def test_undo_act_takes_back_an_act_of_the_pass_only_while_it_is_the_features_latest(llm_project, tmp_path) -> None:
    """Ctrl+Z of a pass: one act on a feature left behind is undone in one transaction, or refused untouched."""
    from core.coding.coding_pass import undo_act
    from core.store import open_project

    project = llm_project.project
    first = coding.code(project, "GB107", "1", reviewer="Ana")
    act = coding.code(project, "GB107", "0", reviewer="Ana")  # the pass's act, then the pass moves on
    done = undo_act(project, [act], reviewer="Ana")
    assert done.undone and done.restored == {"GB107": first} and coding.current(project, "GB107") == first
    assert undo_act(project, [act]).already_undone  # a second time: nothing left to take back, nothing written
    assert len(coding.history(project, "GB107")) == 3

    # someone else (the CLI, on a connection of its own) decides the feature after the pass's act
    act = coding.code(project, "81A", "SOV", reviewer="Ana")
    with open_project(llm_project.path) as cli:
        theirs = coding.code(cli, "81A", "SVO", reviewer="Bo")
    before = coding.history(project, "81A")
    refused = undo_act(project, [act], reviewer="Ana")
    assert not refused.undone and not refused.already_undone and refused.changed == {"81A": theirs}
    assert coding.history(project, "81A") == before and coding.current(project, "81A").code == "2"

    # an act of several rows (a note on the polar-question complex, one row per part) is all or nothing
    rows = coding.add_note(project, "116A*", "see chapter 9", reviewer="Ana")
    assert len(rows) == 7
    coding.code(project, rows[3].feature_id, "1", reviewer="Bo")
    count = len(coding.history(project, rows[0].feature_id))
    assert set(undo_act(project, rows).changed) == {rows[3].feature_id}
    assert len(coding.history(project, rows[0].feature_id)) == count  # the other six parts untouched
    coding.undo(project, rows[3].feature_id)  # Bo's value taken back: the note is every part's latest again
    done = undo_act(project, rows)
    assert done.undone and set(done.restored) == {r.feature_id for r in rows}
    assert all(done.restored[r.feature_id] is None for r in rows)  # nothing was decided before the note
