"""Two coders' files compared and resolved through the real CLI (``compare A B [--resolve-into A]``).

Projects are the demo grammar ingested once (tests/fixtures_sample.py), copied and coded by two
coders through core's coding API; commands run through ``cli.main`` in this process.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.cli_runs import run_cli
from tests.fixtures_sample import code_values


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()  # the project is closed: reading its bytes is safe


@pytest.fixture
def two_coders(demo_copy) -> tuple[Path, Path]:
    """A coded by ana, B by ben: GB020 and GB022 disagree (GB022 "?" against 1), GB021 and 81A agree."""
    from core import coding
    from core.store import open_project

    a, b = demo_copy("a/veshari.grammarlens"), demo_copy("b/veshari.grammarlens")
    with open_project(a, backup=False) as project:
        coding.code(project, "GB020", "1", reviewer="ana", paragraph_ids=[6], note="articles in §2")
    code_values(a, {"GB021": "0", "GB022": "?", "81A": "SOV"}, "ana")
    with open_project(b, backup=False) as project:
        coding.code(project, "GB020", "0", reviewer="ben", paragraph_ids=[8], note="no articles")
    code_values(b, {"GB021": "0", "GB022": "1", "81A": "SOV"}, "ben")
    return a, b


def test_compare_lists_agreement_kappa_and_both_sides_of_each_disagreement_and_changes_nothing(two_coders) -> None:
    a, b = two_coders
    before = (_sha(a), _sha(b))
    code, out, err = run_cli("compare", a, b, "--json")
    assert code == 0, err
    report = json.loads(out)
    verdicts = {f["feature"]: f["verdict"] for f in report["features"]}
    assert verdicts == {"81A": "agree", "GB020": "disagree", "GB021": "agree", "GB022": "disagree"}
    # kappa over the three features both coded with a value (GB022's "?" is excluded):
    # categories are the features' own: 81A's "1" (SOV) is not GB020's "1" (present); the binary
    # Grambank features share the absent/present scale.  A = 81A=1, present, absent; B = 81A=1, absent, absent:
    # p_o = 2/3, p_e = (1*1 [81A=1] + 1*2 [absent]) / 9 = 1/3, kappa = (2/3 - 1/3) / (1 - 1/3) = 0.5
    assert report["overall"]["n"] == 3 and report["overall"]["excluded"] == 1 and report["overall"]["unknown"] == 1
    assert report["overall"]["kappa"] == pytest.approx(0.5)
    gb020 = next(d for d in report["disagreements"] if d["feature"] == "GB020")
    assert (gb020["a"]["coder"], gb020["a"]["value"], gb020["a"]["note"], gb020["a"]["paragraph_ids"]) == \
        ("ana", "1", "articles in §2", [6])
    assert (gb020["b"]["coder"], gb020["b"]["value"], gb020["b"]["note"], gb020["b"]["paragraph_ids"]) == \
        ("ben", "0", "no articles", [8])
    assert (_sha(a), _sha(b)) == before  # both opened read-only: not a byte changed
    assert not (a.parent / "veshari.grammarlens.backups").exists()


def test_resolution_round_trip_stores_one_decision_in_a_that_records_both_coders_and_leaves_b_alone(
        two_coders) -> None:
    a, b = two_coders
    b_before = _sha(b)
    code, out, err = run_cli("compare", a, b, "--resolve-into", a, "--feature", "GB020", "--value", "absent",
                          "--note", "the demonstrative is not an article", "--reviewer", "carol")
    assert code == 0, err
    assert "resolved in veshari.grammarlens: GB020 = 0 (absent)" in out
    assert _sha(b) == b_before  # B is only ever read

    code, out, _err = run_cli("code", a, "--feature", "GB020", "--json")
    current = json.loads(out)
    assert (current["value"], current["reviewer"]) == ("0", "carol")
    assert current["pins"][0]["paragraph_id"] == 8  # B's value taken: B's pin, the same paragraph in A's book
    code, history, _err = run_cli("code", a, "--feature", "GB020", "--history")
    lines = history.strip().splitlines()
    assert lines[0].split()[2] == "ana" and "1 (present)" in lines[0]  # A's earlier decision kept
    resolution = "\n".join(lines[1:])
    assert " carol code: 0 (absent)" in resolution and "the demonstrative is not an article" in resolution
    # who said what before, both sides: coder, value, pages, paragraphs and note
    assert "A: 1 (present) by ana, p. iii (veshari.grammarlens #1" in resolution and "'articles in §2'" in resolution
    assert "B: 0 (absent) by ben, p. 1 (veshari.grammarlens #1" in resolution and "'no articles'" in resolution

    # the files now agree on GB020; GB022 still disagrees
    code, out, _err = run_cli("compare", a, b, "--json")
    assert [d["feature"] for d in json.loads(out)["disagreements"]] == ["GB022"]


def test_take_b_resolves_every_disagreement_in_one_transaction(two_coders) -> None:
    a, b = two_coders
    code, out, err = run_cli("compare", a, b, "--resolve-into", a, "--take", "B", "--reviewer", "carol")
    assert code == 0, err
    code, out, _err = run_cli("compare", a, b, "--json")
    assert json.loads(out)["disagreements"] == []


@pytest.mark.parametrize("extra, words", [
    (["--resolve-into", "{b}", "--feature", "GB020", "--value", "0"], "is not A"),
    (["--feature", "GB020", "--value", "0"], "need --resolve-into"),
    (["--resolve-into", "{a}"], "needs --feature"),
    (["--resolve-into", "{a}", "--feature", "GB021", "--value", "0"], "do not disagree on GB021"),
    (["--resolve-into", "{a}", "--feature", "GB020", "--value", "7"], "not a value of GB020"),
])
def test_bad_resolutions_exit_2_and_store_nothing(two_coders, extra, words) -> None:
    a, b = two_coders
    before = (_sha(a), _sha(b))
    argv = [x.format(a=a, b=b) for x in extra]
    code, _out, err = run_cli("compare", a, b, *argv)
    assert code == 2 and words in err, err
    assert (_sha(a), _sha(b)) == before


def test_a_file_compared_with_itself_is_refused(two_coders) -> None:
    a, _b = two_coders
    code, _out, err = run_cli("compare", a, a)
    assert code == 2 and "the same file" in err


def test_a_resolution_after_a_changed_the_feature_stores_nothing(two_coders) -> None:
    from core import coding
    from core.errors import GrammarLensError
    from core.sample import compare_projects, resolve_disagreement
    from core.store import open_project

    a, b = two_coders
    comparison = compare_projects(a, b)
    gb020 = next(d for d in comparison.disagreements if d.feature_id == "GB020")
    assert gb020.b_pins_for_a[0].paragraph_id == 8
    with open_project(a, backup=False) as project:
        coding.add_note(project, "GB020", "ana again", reviewer="ana")  # A changes after the comparison
        rows = len(coding.history(project, "GB020"))
        with pytest.raises(GrammarLensError, match="changed in veshari.grammarlens since the comparison"):
            resolve_disagreement(project, gb020, "0", resolver="carol")
        assert len(coding.history(project, "GB020")) == rows


def test_two_folders_pair_by_glottocode_and_give_kappa_per_coder_pair(two_coders) -> None:
    a, b = two_coders
    code, out, err = run_cli("compare", a.parent, b.parent, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert len(report["pairs"]) == 1 and report["unpaired"] == []
    pair = report["by_coder_pair"][0]
    assert (pair["a"], pair["b"], pair["n"]) == ("ana", "ben", 3)
    assert pair["kappa"] == pytest.approx(0.5)  # feature categories, as in the first test
