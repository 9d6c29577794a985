"""Issue 30, items 1-3: a resolution cites only the evidence of the side its value came from, is refused
across languages unless asked for, and the blind comparison survives it (kept in A, reported beside the current one).

Real projects of the demo grammar (tests/fixtures_sample.py), a second edition made by adding a page to the PDF
with PyMuPDF and ingesting it, commands through ``cli.main``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.cli_runs import run_cli
from tests.fixtures_sample import code_values


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _current(path: Path, feature: str) -> dict:
    code, out, err = run_cli("code", path, "--feature", feature, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def pair(demo_copy) -> tuple[Path, Path]:
    """A (ana) pinned ¶6 for GB020 = 1; B (ben) coded GB020 = 0 with NO pins; GB021 agrees; GB022 "?" vs 1."""
    from core import coding
    from core.store import open_project

    a, b = demo_copy("a/veshari.grammarlens"), demo_copy("b/veshari.grammarlens")
    with open_project(a, backup=False) as project:
        coding.code(project, "GB020", "1", reviewer="ana", paragraph_ids=[6])
    code_values(a, {"GB021": "0", "GB022": "?", "81A": "SOV"}, "ana")
    code_values(b, {"GB020": "0", "GB021": "0", "GB022": "1", "81A": "SOV"}, "ben")
    return a, b


def test_taking_b_value_when_b_pinned_nothing_leaves_no_pin_of_a_and_says_so(pair) -> None:
    a, b = pair
    code, _out, err = run_cli("compare", a, b, "--resolve-into", a, "--feature", "GB020", "--value", "0")
    assert code == 0, err
    now = _current(a, "GB020")
    assert now["value"] == "0"
    assert now["pins"] == []  # today's main kept A's ¶6, the page A pinned for "1"
    assert "B's value; B pinned no evidence" in now["note"]


def test_taking_b_value_takes_b_pins_of_the_same_book_and_keeping_a_value_keeps_a_pins(pair) -> None:
    from core import coding
    from core.store import open_project

    a, b = pair
    with open_project(b, backup=False) as project:
        coding.pin(project, "GB020", [8], reviewer="ben")
    assert run_cli("compare", a, b, "--resolve-into", a, "--feature", "GB020", "--value", "0")[0] == 0
    assert [p["paragraph_id"] for p in _current(a, "GB020")["pins"]] == [8]
    code, _out, err = run_cli("compare", a, b, "--resolve-into", a, "--feature", "GB022", "--value", "?")
    assert code == 0, err  # A's own value: A's pins (none here), and never B's
    assert _current(a, "GB022")["pins"] == []


def _second_edition(demo_master: Path, folder: Path) -> Path:
    """The demo PDF with one page more (another sha256, same paragraphs and printed pages, one new paragraph)."""
    import pymupdf

    from core.store import open_project
    from core.store.repository import list_documents

    with open_project(demo_master, readonly=True) as project:
        source = Path(list_documents(project)[0].path)
    out = folder / "veshari_2nd.pdf"
    with pymupdf.open(source) as doc:
        page = doc.new_page(-1)
        page.insert_text((72, 100), "Addendum of the second edition: articles are optional in speech.")
        doc.save(out)
    return out


def test_b_on_another_edition_is_mapped_by_text_and_the_pins_that_cannot_be_are_named(demo_master, demo_copy,
                                                                                   tmp_path) -> None:
    from core import coding
    from core.ingest import ingest
    from core.store import open_project
    from core.store.repository import list_paragraphs

    a = demo_copy("a/veshari.grammarlens")
    with open_project(a, backup=False) as project:
        coding.code(project, "GB020", "1", reviewer="ana", paragraph_ids=[6])
    b = tmp_path / "b" / "veshari.grammarlens"
    b.parent.mkdir()
    pdf = _second_edition(demo_master, b.parent)
    with open_project(b, create=True) as project:
        ingest(project, pdf, language="Veshari", glottocode="nucl1235")
        paragraphs = list_paragraphs(project)
        added = next(p for p in paragraphs if "second edition" in p.text)
        shared = next(p for p in paragraphs if p.id == 8)
        coding.code(project, "GB020", "0", reviewer="ben", paragraph_ids=[shared.id, added.id],
                    page_labels=[shared.page_label])
    code, out, err = run_cli("compare", a, b, "--json")
    d = json.loads(out)["disagreements"][0]
    assert [p["paragraph_id"] for p in d["b_pins_for_a"]] == [8]  # the same text, in A's own copy
    assert len(d["b_unmapped"]) == 2 and any("no paragraph with its text" in u for u in d["b_unmapped"])
    assert any("another edition" in u for u in d["b_unmapped"])  # the page-only pin: named, not guessed
    assert run_cli("compare", a, b, "--resolve-into", a, "--take", "B")[0] == 0
    now = _current(a, "GB020")
    assert [p["paragraph_id"] for p in now["pins"]] == [8]  # never A's ¶6
    assert "Not found in A's book" in now["note"]


def test_resolving_between_two_languages_is_refused_unless_asked_for(pair) -> None:
    a, b = pair
    assert run_cli("language", b, "--name", "Ulwa", "--glottocode", "yaul1241")[0] == 0
    before = _sha(a)
    code, _out, err = run_cli("compare", a, b, "--resolve-into", a, "--take", "B")
    assert code == 2 and "describes nucl1235" in err and "--across-languages" in err
    assert _sha(a) == before  # nothing stored
    code, _out, err = run_cli("compare", a, b, "--resolve-into", a, "--take", "B", "--across-languages")
    assert code == 0, err
    assert _current(a, "GB020")["value"] == "0"


def test_blind_figures_survive_a_resolution_and_resolved_features_are_marked(pair) -> None:
    a, b = pair
    code, out, _err = run_cli("compare", a, b, "--json")
    before = json.loads(out)
    assert before["blind"] == before["current"] and before["resolved"] == []
    assert run_cli("compare", a, b, "--resolve-into", a, "--take", "B", "--reviewer", "carol")[0] == 0
    code, out, _err = run_cli("compare", a, b, "--json")
    after = json.loads(out)
    # current: 81A, GB020, GB021, GB022 all equal now -> agreement 1.000 over 4
    assert (after["current"]["n"], after["current"]["agreement"]) == (4, 1.0)
    # blind: as before the resolution -> 81A, GB021 agree, GB020 1 vs 0; GB022 "?" excluded: 2/3, kappa 0.5
    assert (after["blind"]["n"], after["blind"]["unknown"]) == (3, 1)
    assert after["blind"]["agreement"] == pytest.approx(2 / 3) and after["blind"]["kappa"] == pytest.approx(0.5)
    assert after["resolved"] == ["GB020", "GB022"]
    gb020 = next(f for f in after["features"] if f["feature"] == "GB020")
    assert (gb020["verdict"], gb020["blind_verdict"], gb020["blind"]) == ("agree", "disagree", ["1", "0"])
    code, out, _err = run_cli("compare", a, b)
    assert "blind  : agreement 0.667" in out and "current: agreement 1.000" in out and "[resolved" in out
    # the folder comparison reports the blind values too
    code, out, _err = run_cli("compare", a.parent, b.parent, "--json")
    assert json.loads(out)["by_coder_pair"][0]["agreement"] == pytest.approx(2 / 3)


def test_the_blind_record_is_read_from_a_read_only_open_of_a(pair) -> None:
    from core.sample.blind import find_record
    from core.sample.snapshot import read_project

    a, b = pair
    assert run_cli("compare", a, b, "--resolve-into", a, "--take", "A")[0] == 0
    record = find_record(read_project(a).blind_records, b)  # read_project opens read-only
    assert record is not None and record["features"]["GB020"] == ["1", "0"]


def test_compare_reports_reliability_and_alpha_over_more_than_two_coders(pair, demo_copy) -> None:
    a, b = pair
    c = demo_copy("c/veshari.grammarlens")
    code_values(c, {"GB020": "1", "GB021": "0", "GB022": "1", "81A": "SOV"}, "cem")
    code, out, err = run_cli("compare", a, b, "--json")
    blind = json.loads(out)["reliability"]["blind"]
    assert blind["n"] == 3 and blind["kappa"]["estimate"] == pytest.approx(0.5)
    assert blind["kappa"]["seed"] == 30 and blind["kappa"]["resamples"] == 1000
    code, out, err = run_cli("compare", a.parent, b.parent, "--also", c.parent, "--json")
    assert code == 0, err
    alpha = json.loads(out)["alpha_all_coders"]
    # units (feature categories): 81A 81A=1 x3; GB020 1, 0, 1; GB021 0, 0, 0; GB022 ?, 1, 1 -> (1, 1)
    # coincidences: 81A=1: 6*(1/2) = 3; GB020: o_11 += 2*(1/2) = 1, o_10 = o_01 = 2*(1/2) = 1; GB021: o_00 += 3;
    # GB022 (m = 2): o_11 += 2.  n_81A = 3, n_1 = 1 + 1 + 2 = 4, n_0 = 1 + 3 = 4, n = 11
    # D_o = 2/11; D_e = (2*3*4 + 2*3*4 + 2*4*4) / (11*10) = 80/110; alpha = 1 - (2/11) / (80/110) = 0.75
    assert (alpha["coders"], alpha["units"]) == (3, 4) and alpha["alpha"] == pytest.approx(0.75)
