"""One vocabulary (issue 29): statuses, filter keys, job states and error kinds are declared once, in
``core.records.vocabulary``, and stay the strings the project file, the exports and the CLI have always held."""

from __future__ import annotations

import json
import re
from pathlib import Path

from core import coding
from core.records.vocabulary import RESUMABLE_STATES, DecisionStatus, ErrorKind, FilterKey, JobState, ProfileStatus
from core.store import open_project

REPO = Path(__file__).resolve().parents[2]
# Words of the sets that mean nothing else in the code base (generic ones such as "all", "done" or "server" are
# left out: they name other things too).
DISTINCT_WORDS = ("coded", "accepted", "overridden", "predicted", "uncoded", "not coded", "not enough information",
                  "no value", "evidence only", "pending", "running", "incomplete", "no_key", "model_not_found",
                  "rate_limited", "context_length", "format_unsupported", "bad_reply")


def test_the_words_are_the_strings_already_stored_and_printed():
    # A change here changes every project file, export and script that reads the CLI: it needs a migration.
    assert [s.value for s in DecisionStatus] == ["coded", "accepted", "overridden", "unknown", "note", "undo"]
    assert [s.value for s in ProfileStatus] == ["predicted", "accepted", "overridden", "coded", "unknown",
                                                "not enough information", "no value", "evidence only", "note",
                                                "uncoded", "not coded"]
    assert [f.value for f in FilterKey] == ["all", "uncoded", "predicted", "disagree"]
    assert [s.value for s in JobState] == ["pending", "running", "done", "incomplete", "cancelled", "failed"]
    assert {ErrorKind.AUTH, ErrorKind.TIMEOUT, ErrorKind.NOT_FOUND} == {"auth", "timeout", "not_found"}
    assert set(RESUMABLE_STATES) == {"incomplete", "cancelled", "failed"}


def test_a_member_is_written_as_its_word(tmp_path: Path):
    with open_project(tmp_path / "p.grammarlens", create=True) as project:
        decision = coding.code(project, "GB020", "1", reviewer="tester")
        stored = project.conn.execute("SELECT status, typeof(status) FROM decisions").fetchone()
    assert tuple(stored) == ("coded", "text")
    assert decision.status == DecisionStatus.CODED
    assert json.loads(json.dumps(decision.to_json()))["status"] == "coded"
    assert f"{JobState.DONE} {ProfileStatus.NOT_ENOUGH}" == "done not enough information"


def test_no_module_declares_a_word_of_the_vocabulary_again():
    """A constant spelled out again (``PREDICTED = "predicted"``) is how the sets drifted apart before."""
    names, literals = r"[A-Z][A-Z0-9_]*(?:\s*,\s*[A-Z][A-Z0-9_]*)*", r'"[^"\n]*"(?:\s*,\s*"[^"\n]*")*'
    declaration = re.compile(rf"^\s*{names}\s*(?::[^=\n]+)?=\s*\(?({literals})\)?\s*(?:#.*)?$", re.MULTILINE)
    found = []
    for folder in ("core", "cli", "gui", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel == "core/records/vocabulary.py" or rel.startswith("core/store/migrations/"):
                continue  # the one declaration; migrations that landed are never edited
            for match in declaration.finditer(path.read_text(encoding="utf-8")):
                if set(re.findall(r'"([^"]*)"', match.group(1))) & set(DISTINCT_WORDS):
                    found.append(f"{rel}: {match.group(0).strip()}")
    assert found == []
