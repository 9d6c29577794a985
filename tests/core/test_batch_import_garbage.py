"""A batch import keeps every good line, whatever the bad ones look like (issue 19).

Every test imports a results file holding the five good answer lines of a small project plus one
bad line, and checks that the five were stored and the bad line was counted and listed by its
number with a reason.  The last tests mutate a valid file at random (fixed seed) and check that no
exception escapes, every untouched line is stored, and a second import changes nothing.

The project and its requests are written once per module and copied per test (a closed project
is one file).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from core.profile.batch_files import BatchImportReport, import_batch_results, parse_custom_id
from core.store import open_project
from tests.batch_results import dumps, requests_by_feature, result_for, table_counts, write_requests

GOOD = ["81A", "GB107", "116A*", "GB020", "49A"]  # the five good lines, in this order
SPARE = "GB021"  # the feature a bad line answers (no good line answers it)


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    """(a closed project file, feature -> its request line), written once for the module."""
    path, requests = write_requests(tmp_path_factory.mktemp("garbage"), "master.grammarlens", GOOD + [SPARE])
    return path, requests_by_feature(requests)


@pytest.fixture
def project(written, tmp_path) -> Path:
    path = tmp_path / "testish.grammarlens"
    shutil.copy(written[0], path)
    return path


def good_lines(written) -> list[bytes]:
    return [dumps(result_for(written[1][f])) for f in GOOD]


def stored_features(path: Path) -> dict[str, int]:
    """Feature -> number of stored classifications."""
    with open_project(path, readonly=True) as project:
        return dict(project.conn.execute("SELECT feature_id, count(*) FROM classifications GROUP BY feature_id"))


def each_line_counted_once(report: BatchImportReport) -> None:
    c = report.counts()
    assert c["lines"] == sum(c[k] for k in ("imported", "already", "duplicates", "errors", "unknown", "stale",
                                            "broken", "failed")), c


def spare(written, mutate) -> bytes:
    """The spare feature's good result line, changed by ``mutate`` (which edits the object in place)."""
    obj = result_for(written[1][SPARE])
    mutate(obj)
    return dumps(obj)


def body(obj: dict) -> dict:
    return obj["response"]["body"]


def set_content(answer: dict):
    def mutate(obj: dict) -> None:
        body(obj)["choices"][0]["message"]["content"] = json.dumps(answer, ensure_ascii=False)
    return mutate


def with_body(**changes):
    def mutate(obj: dict) -> None:
        body(obj).update(changes)
    return mutate


def with_message(**changes):
    def mutate(obj: dict) -> None:
        body(obj)["choices"][0]["message"].update(changes)
    return mutate


def with_usage(**changes):
    def mutate(obj: dict) -> None:
        body(obj)["usage"].update(changes)
    return mutate


def with_response(**changes):
    def mutate(obj: dict) -> None:
        obj["response"].update(changes)
    return mutate


def with_line(**changes):
    def mutate(obj: dict) -> None:
        obj.update(changes)
    return mutate


def without(key: str):
    def mutate(obj: dict) -> None:
        del obj[key]
    return mutate


def invalid_utf8(written) -> bytes:
    line = spare(written, lambda obj: None)
    at = line.index(b"Paragraph 1")
    return line[:at] + b"\xff\xfe" + line[at:]


# (shape, the bad line, how it is reported: a problem kind or "stored" (no problem), words of the reason)
SHAPES = [
    ("not JSON", lambda w: b"this is not json", "broken", "is not valid JSON (Expecting value at column 1)"),
    ("not UTF-8", invalid_utf8, "broken", "is not UTF-8 text (byte 0xff at column"),
    ("JSON list", lambda w: b"[1, 2, 3]", "broken", "is a list, not a batch result line"),
    ("JSON text", lambda w: b'"a result"', "broken", "is the text 'a result', not a batch result line"),
    ("JSON number", lambda w: b"42", "broken", "is the number 42, not a batch result line"),
    ("JSON null", lambda w: b"null", "broken", "is null, not a batch result line"),
    ("JSON true", lambda w: b"true", "broken", "is true, not a batch result line"),
    ("empty object", lambda w: b"{}", "broken", "no custom_id"),
    ("missing custom_id", lambda w: spare(w, without("custom_id")), "broken", "no custom_id"),
    ("custom_id a number", lambda w: spare(w, with_line(custom_id=12345)), "broken",
     "custom_id is the number 12345, not text"),
    ("custom_id a list", lambda w: spare(w, with_line(custom_id=["gl1"])), "broken", "custom_id is a list"),
    ("custom_id of another batch", lambda w: spare(w, with_line(custom_id="req-17")), "unknown",
     "custom_id 'req-17' was not written by GrammarLens"),
    ("custom_id of another project", lambda w: spare(w, lambda o: o.update(
        custom_id=o["custom_id"].replace(parse_custom_id(o["custom_id"])[0], "0123456789ab"))), "unknown",
     "belongs to a project not given here"),
    ("custom_id never written", lambda w: spare(w, lambda o: o.update(
        custom_id=o["custom_id"].replace(parse_custom_id(o["custom_id"])[3], "f" * 16))), "unknown",
     "was not written from testish.grammarlens"),
    ("custom_id with a lone surrogate", lambda w: spare(w, lambda o: o.update(custom_id=o["custom_id"] + "\ud800")),
     "unknown", "was not written by GrammarLens"),
    ("custom_id a megabyte long", lambda w: spare(w, with_line(custom_id="gl1:" + "x" * 2 ** 20)), "unknown",
     "custom_id 'gl1:xxxx"),
    ("duplicate of line 1", lambda w: good_lines(w)[0], "duplicate", "81A: the same answer again in this file"),
    ("error as text", lambda w: spare(w, with_line(error="boom", response=None)), "error",
     "SPARE: the batch reported an error: boom; nothing stored"),
    ("error as a list", lambda w: spare(w, with_line(error=[1, 2])), "error", "the batch reported an error: [1, 2]"),
    ("error without words", lambda w: spare(w, with_line(error={"code": None})), "error", "no reason given"),
    ("no response", lambda w: spare(w, without("response")), "error", "the line has no response"),
    ("response a list", lambda w: spare(w, with_line(response=[1])), "broken", "the response is a list"),
    ("response text", lambda w: spare(w, with_line(response="ok")), "broken", "the response is the text 'ok'"),
    ("status_code text", lambda w: spare(w, with_response(status_code="abc")), "broken",
     "status_code is the text 'abc', not an HTTP status"),
    ("status_code huge", lambda w: spare(w, with_response(status_code=10 ** 30)), "broken", "not an HTTP status"),
    ("status_code infinite", lambda w: spare(w, with_response(status_code=float("inf"))), "broken",
     "status_code is the number inf"),
    ("status 500, body null", lambda w: spare(w, with_response(status_code=500, body=None)), "error",
     "failed with status 500"),
    ("no body", lambda w: spare(w, with_response(body=None)), "error",
     "the response has no body"),
    ("body text", lambda w: spare(w, with_response(body="answer")), "broken", "the response's body is the text"),
    ("choices an object", lambda w: spare(w, with_body(choices={"x": 1})), "broken",
     "the response's choices is an object, not a list"),
    ("choices text", lambda w: spare(w, with_body(choices="abc")), "broken", "choices is the text 'abc'"),
    ("choices empty", lambda w: spare(w, with_body(choices=[])), "error", "without any answer"),
    ("choice a number", lambda w: spare(w, with_body(choices=[5])), "broken", "first choice is the number 5"),
    ("message text", lambda w: spare(w, lambda o: body(o)["choices"][0].update(message="hi")), "broken",
     "has the text 'hi' as its message"),
    ("no message", lambda w: spare(w, lambda o: body(o)["choices"][0].pop("message")), "broken",
     "has null as its message"),
    ("content an object", lambda w: spare(w, with_message(content={"a": 1})), "broken",
     "the answer's content is an object, not text"),
    ("content a number", lambda w: spare(w, with_message(content=42)), "broken", "content is the number 42"),
    ("content parts not text", lambda w: spare(w, with_message(content=[{"type": "image"}])), "broken",
     "content parts are not all text"),
    ("usage text", lambda w: spare(w, with_body(usage="lots")), "usage", "token counts are unreadable"),
    ("usage count as words", lambda w: spare(w, with_usage(prompt_tokens="twelve")), "usage", "unreadable"),
    ("usage count huge", lambda w: spare(w, with_usage(prompt_tokens=10 ** 30)), "usage", "unreadable"),
    ("usage count negative", lambda w: spare(w, with_usage(completion_tokens=-5)), "usage", "unreadable"),
    ("usage count infinite", lambda w: spare(w, with_usage(prompt_tokens=float("inf"))), "usage", "unreadable"),
    ("usage count not a number", lambda w: spare(w, with_usage(prompt_tokens=float("nan"))), "usage", "unreadable"),
    ("usage count true", lambda w: spare(w, with_usage(prompt_tokens=True)), "usage", "unreadable"),
    ("usage count as text digits", lambda w: spare(w, with_usage(prompt_tokens="12")), "stored", ""),
    ("status_code as text digits", lambda w: spare(w, with_response(status_code="200")), "stored", ""),
    ("model an object", lambda w: spare(w, with_body(model={"name": "x"})), "stored", ""),
    ("finish_reason a number", lambda w: spare(w, lambda o: body(o)["choices"][0].update(finish_reason=7)),
     "stored", ""),
    ("error false", lambda w: spare(w, with_line(error=False)), "stored", ""),
    ("content parts", lambda w: spare(w, lambda o: with_message(content=[
        {"type": "text", "text": body(o)["choices"][0]["message"]["content"]}])(o)), "stored", ""),
    ("citation ²", lambda w: spare(w, set_content({"reasoning": "r", "cited_paragraphs": ["²"], "value": "1"})),
     "stored", ""),
    ("citations of every type", lambda w: spare(w, set_content({
        "reasoning": "r", "cited_paragraphs": [None, True, [1], {"a": 1}, 1.5, 10 ** 30, "1"], "value": "1"})),
     "stored", ""),
    ("value an object", lambda w: spare(w, set_content({"reasoning": "r", "value": {"a": 1}})), "unparsable",
     "the answer names no value of the set"),
    ("content a lone surrogate", lambda w: spare(w, with_message(content="\ud800 Conclusion: 1")), "stored", ""),
    ("content nested too deeply", lambda w: spare(w, with_message(
        content='{"value": ' + "[" * 100_000 + "]" * 100_000 + "}")), "unparsable",
     "names no value"),
    ("content with a 5,000-digit number", lambda w: spare(w, with_message(content="Paragraph " + "9" * 5000)),
     "unparsable", "names no value"),
    ("a 5,000-digit number", lambda w: b'{"custom_id": "x", "n": ' + b"9" * 5000 + b"}", "broken",
     "is not valid JSON (Exceeds the limit"),
    ("nested too deeply", lambda w: b'{"custom_id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "broken",
     "nested too deeply"),
    ("NUL bytes", lambda w: b"\x00\x00{}", "broken", "not"),
]


@pytest.mark.parametrize("shape, make, outcome, words", SHAPES, ids=[s[0] for s in SHAPES])
def test_a_bad_line_of_any_shape_costs_only_itself(written, project, tmp_path, shape, make, outcome, words):
    lines = good_lines(written)
    bad = make(written)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\n".join(lines[:2] + [bad] + lines[2:]) + b"\n")  # the bad line is line 3

    report = import_batch_results([project], results)

    each_line_counted_once(report)
    stored = stored_features(project)
    assert {f: stored.get(f) for f in GOOD} == dict.fromkeys(GOOD, 1), report.problems  # every good line stored
    problems = {p.line: p for p in report.problems}
    assert set(problems) <= {3}, report.problems  # no other line has a problem
    assert report.lines == 6
    if outcome == "stored":
        assert not problems and report.imported == 6 and stored.get(SPARE) == 1
        return
    problem = problems[3]
    assert problem.kind == outcome
    assert words.replace("SPARE", SPARE) in problem.message
    assert problem.describe().startswith("line 3: ")
    assert "\n" not in problem.message and len(problem.message) < 400
    problem.message.encode("utf-8")  # printable: no lone surrogate reaches a terminal
    assert stored.get(SPARE) == (1 if outcome in ("unparsable", "usage") else None)
    assert report.imported == 5 + (outcome in ("unparsable", "usage"))


def test_text_usage_counts_are_read_and_unreadable_ones_make_the_cost_unknown(written, project, tmp_path):
    results = tmp_path / "results.jsonl"
    results.write_bytes(spare(written, with_usage(prompt_tokens="12", completion_tokens="3")) + b"\n")
    assert import_batch_results([project], results).imported == 1
    with open_project(project, readonly=True) as p:
        assert p.conn.execute("SELECT prompt_tokens, completion_tokens, cost_usd FROM classifications").fetchone() \
            == (12, 3, 0.0)  # a local server costs nothing
    other = tmp_path / "other.grammarlens"
    shutil.copy(written[0], other)
    results.write_bytes(spare(written, with_usage(prompt_tokens="twelve")) + b"\n")
    report = import_batch_results([other], results)
    assert (report.imported, report.usage_unread) == (1, 1)
    with open_project(other, readonly=True) as p:
        assert p.conn.execute("SELECT prompt_tokens, completion_tokens, cost_usd FROM classifications").fetchone() \
            == (0, 0, None)


def test_a_citation_that_names_no_paragraph_is_ignored_with_a_note(written, project, tmp_path):
    results = tmp_path / "results.jsonl"
    answer = {"reasoning": "See the note.", "cited_paragraphs": ["²", 1], "value": "1"}
    results.write_bytes(spare(written, set_content(answer)) + b"\n")
    assert import_batch_results([project], results).imported == 1
    with open_project(project, readonly=True) as p:
        reasoning, status = p.conn.execute("SELECT reasoning, status FROM classifications").fetchone()
        cited = p.conn.execute("SELECT prompt_number FROM classification_evidence WHERE cited = 1").fetchall()
    assert status == "ok" and cited == [(1,)]
    assert 'ignored citations that are not paragraph numbers: "²"' in reasoning


def test_a_cut_off_last_line_is_listed_and_the_rest_stored(written, project, tmp_path):
    lines = good_lines(written)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\n".join(lines + [spare(written, lambda o: None)[:80]]))  # no final newline
    report = import_batch_results([project], results)
    assert report.imported == 5 and [(p.line, p.kind) for p in report.problems] == [(6, "broken")]
    assert "is cut off (the file ends mid-line)" in report.problems[0].message
    cut_mid_character = dumps(result_for(written[1][SPARE], "Conclusion: présent"))
    results.write_bytes(b"\n".join(lines + [cut_mid_character[: cut_mid_character.index("é".encode()) + 1]]))
    again = import_batch_results([project], results)
    assert again.already == 5 and "cut off" in again.problems[0].message


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\r\n"])
def test_an_empty_file_imports_nothing_and_says_so(project, tmp_path, content):
    results = tmp_path / "results.jsonl"
    results.write_bytes(content)
    report = import_batch_results([project], results)
    assert (report.lines, report.imported, report.problems) == (0, 0, [])
    assert report.describe() == "0 line(s): 0 imported"


def test_a_runaway_line_is_skipped_unread(written, project, tmp_path, monkeypatch):
    monkeypatch.setattr("core.profile.batch_files.importing.MAX_LINE_BYTES", 4096)
    lines = good_lines(written)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\n".join(lines[:1] + [b"[" + b"1," * 5000 + b"1]"] + lines[1:]) + b"\n")
    report = import_batch_results([project], results)
    assert report.imported == 5 and [(p.line, p.kind) for p in report.problems] == [(2, "broken")]
    assert "is longer than 4,096 bytes" in report.problems[0].message


def test_windows_line_ends_and_a_byte_order_mark_are_read(written, project, tmp_path):
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(good_lines(written)) + b"\r\n")
    report = import_batch_results([project], results)
    assert (report.imported, report.problems) == (5, [])


def test_every_bad_shape_at_once_then_again_changes_nothing(written, project, tmp_path):
    """All the shapes in one file: each listed under its own line number; a second import stores nothing new."""
    lines = good_lines(written)
    bad = [make(written) for _, make, outcome, _ in SHAPES if outcome not in ("stored", "unparsable", "usage",
                                                                               "duplicate")]
    pairs = zip(bad, lines * len(bad), strict=False)
    mixed = [x for pair in pairs for x in pair][: 2 * len(bad)]  # bad, good, bad, good...
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\n".join(mixed) + b"\n")
    report = import_batch_results([project], results)
    each_line_counted_once(report)
    assert report.imported == 5 and sorted(stored_features(project)) == sorted(GOOD)
    listed = {p.line for p in report.problems}
    assert set(range(1, len(mixed) + 1, 2)) <= listed  # every bad line (odd numbers) listed
    before = table_counts(project)
    again = import_batch_results([project], results)
    assert again.imported == 0 and again.already == 5 and table_counts(project) == before


# -- property: random damage, fixed seed ----------------------------------------------------------------

JUNK = [None, True, False, 0, -1, 1.5, 1e308, float("inf"), float("nan"), "", "x", "²", "\ud800", [], {}, [1, [2]],
        {"a": None}, 10 ** 30, "9" * 50, {"choices": {"x": 1}}, [{"message": 5}]]


def _paths(value, prefix=()):
    """Every (path) inside a JSON value, the root excluded; the answer's content counts as JSON too."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value):
    for step in path[:-1]:
        obj = obj[step]
    obj[path[-1]] = value


def _delete(obj, path):
    for step in path[:-1]:
        obj = obj[step]
    del obj[path[-1]]


def mutate(rng: random.Random, obj: dict) -> bytes:
    """One random damage to a result line: a type swap anywhere (the content's JSON included), a deleted key,
    a truncation, stray bytes, or another JSON value entirely."""
    how = rng.choice(["swap", "swap", "swap-content", "delete", "truncate", "bytes", "replace"])
    if how == "swap-content":
        message = obj["response"]["body"]["choices"][0]["message"]
        answer = json.loads(message["content"])
        _set(answer, rng.choice(list(_paths(answer))), rng.choice(JUNK))
        message["content"] = json.dumps(answer, ensure_ascii=False)
        return dumps(obj)
    if how == "swap":
        _set(obj, rng.choice(list(_paths(obj))), rng.choice(JUNK))
        return dumps(obj)
    if how == "delete":
        path = rng.choice([p for p in _paths(obj) if isinstance(p[-1], str)])
        _delete(obj, path)
        return dumps(obj)
    line = dumps(obj)
    if how == "truncate":
        return line[: rng.randrange(1, len(line))]
    if how == "bytes":
        at = rng.randrange(0, len(line))
        return line[:at] + rng.choice([b"\xff", b"\x00", b"\xc3", b"{", b'"', b"\\", b"\xed\xa0\x80"]) + line[at:]
    return dumps(rng.choice(JUNK))


def test_random_damage_never_escapes_and_every_untouched_line_is_stored(written, tmp_path):
    rng = random.Random(20240919)
    features = GOOD + [SPARE]
    rounds, damaged_lines, untouched_lines = 40, 0, 0
    for round_ in range(rounds):
        path = tmp_path / f"p{round_}.grammarlens"
        shutil.copy(written[0], path)
        lines, untouched = [], []
        for feature in rng.sample(features, len(features)):
            obj = result_for(written[1][feature])
            if rng.random() < 0.5:
                lines.append(mutate(rng, obj))
                damaged_lines += 1
            else:
                lines.append(dumps(obj))
                untouched.append((len(lines), feature))
                untouched_lines += 1
        data = b"\n".join(lines) + (b"\n" if rng.random() < 0.8 else b"")
        results = tmp_path / f"r{round_}.jsonl"
        results.write_bytes(data)

        report = import_batch_results([path], results)  # no exception, whatever the damage

        each_line_counted_once(report)
        stored = stored_features(path)
        listed = {p.line for p in report.problems}
        for number, feature in untouched:
            assert stored.get(feature) == 1 and number not in listed, (round_, number, report.problems)
        assert sum(stored.values()) == report.imported
        not_stored = report.lines - report.imported
        assert len([p for p in report.problems if p.kind not in ("unparsable", "usage")]) == not_stored
        before = table_counts(path)
        again = import_batch_results([path], results)
        assert again.imported == 0 and table_counts(path) == before, again.problems  # idempotent
        assert again.already == report.imported
    assert damaged_lines > 100 and untouched_lines > 100  # 240 lines in all, about half of them damaged


def test_a_file_that_fails_to_read_midway_keeps_what_was_stored(written, project, tmp_path, monkeypatch):
    """An I/O error on the results file (a network drive gone) stops the import with what is kept, in words."""
    import core.profile.batch_files.importing as importing
    from core.errors import GrammarLensError

    real = importing.result_lines

    def failing(fh, max_bytes):
        for n, item in enumerate(real(fh, max_bytes)):
            if n == 3:
                raise OSError(5, "Input/output error")
            yield item

    monkeypatch.setattr(importing, "result_lines", failing)
    monkeypatch.setattr(importing, "CHUNK_LINES", 2)
    monkeypatch.setattr(importing, "CHUNK_PAUSE", 0.0)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\n".join(good_lines(written)) + b"\n")
    with pytest.raises(GrammarLensError) as info:
        import_batch_results([project], results)
    assert info.value.message == "Reading results.jsonl failed after line 3: Input/output error."
    assert info.value.hint.startswith("The 2 answer(s) stored before were kept")
    assert sum(stored_features(project).values()) == 2  # the first chunk; the third line was rolled back
    monkeypatch.setattr(importing, "result_lines", real)
    assert import_batch_results([project], results).imported == 3  # the rest, once


def test_a_bug_while_storing_one_line_costs_only_that_line(written, project, tmp_path, monkeypatch):
    """An exception nobody foresaw (a bug) rolls back its line's savepoint, is listed as one, and the rest import."""
    import core.profile.batch_files.importing as importing

    real = importing.store_answer

    def store(number, body, usage_read, request, s):
        real(number, body, usage_read, request, s)  # stored, then the bug: the savepoint must undo it
        if request.feature_id == "GB107":
            raise RuntimeError("a bug")

    monkeypatch.setattr(importing, "store_answer", store)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\n".join(good_lines(written)) + b"\n")
    report = import_batch_results([project], results)
    assert (report.imported, report.failed) == (4, 1)
    assert [(p.line, p.kind) for p in report.problems] == [(2, "failed")]
    assert report.problems[0].message.startswith("could not be imported (RuntimeError: a bug); nothing stored. "
                                                 "This is a bug in GrammarLens")
    assert "GB107" not in stored_features(project) and len(stored_features(project)) == 4
    with open_project(project, readonly=True) as p:
        assert p.conn.execute("SELECT count(*) FROM batch_requests WHERE classification_id IS NOT NULL "
                              "AND feature_id = 'GB107'").fetchone()[0] == 0
        assert p.conn.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 4
