"""Bad command-line input: one clear message and exit code 2, never a traceback, never a damaged project.

The fuzz test walks ``cli.build_parser()``, so a new subcommand or option is fuzzed without
touching this file.  It feeds every option that takes a value huge and negative numbers, empty
strings, control characters, text that is not UTF-8 (as the terminal delivers it: lone
surrogates from ``os.fsdecode``), random bytes, and paths to the project, a folder, a PDF and a
missing folder; exit code 1 (a bug caught by cli.main's safety net) fails the test.  The focused
tests below it pin each bug of issue 19 that the fuzzing found or that was reported.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import cli
from cli import UsageError
from core.errors import GrammarLensError
from core.output_paths import EXPORT_FILES, check_export_folder, check_output_file, is_pdf_file, is_project_file
from core.store.database import APPLICATION_ID
from tests.cli_runs import run_cli, run_main
from tests.fixtures_ingest import write_sample_book

SEED = 19  # issue 19
MISSING_DIR = "/nonexistent-grammarlens-folder"

# Commands whose handlers are not run (their arguments are still parsed with every bad value):
# benchmarks work for minutes over ../shared, load embedding models or open the desktop app.
PARSE_ONLY = {("bench",): "benchmarks run for minutes over ../shared/grammars, models or the Qt app"}


# -- the project and the files the commands get ---------------------------------------------------------

@dataclass
class Setup:
    project: Path
    pdf: Path
    folder: Path
    requests: Path
    batch_id: str
    url: str
    cwd: Path
    counter: int = 0

    def fresh(self, suffix: str = "") -> str:
        """A new path in the work folder (an export folder, a results file) for one invocation."""
        self.counter += 1
        return str(self.cwd / f"out{self.counter}{suffix}")


def _run(argv: list[str]) -> tuple[int, str, str]:
    """cli.main in this process: (exit code, stdout, stderr); argparse's SystemExit is an exit code too."""
    return run_cli(*argv, exit_as_code=True)


def _ok(argv: list[str]) -> str:
    code, out, err = _run(argv)
    assert code == 0, (argv, code, err)
    return out


def _integrity(path: Path) -> tuple[str, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0], conn.execute("PRAGMA application_id").fetchone()[0]
    finally:
        conn.close()


def _count(path: Path, table: str) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture
def setup(tmp_path, llm_server, llm_settings, monkeypatch) -> Setup:
    """A real project (the sample grammar ingested, GB020 coded and pinned), a batch on the local server."""
    from core.llm.batch_api import submit

    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.url)  # a command without --base-url reaches nothing else
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    monkeypatch.setenv("GRAMMARLENS_REVIEWER", "fuzz")
    monkeypatch.delenv("GRAMMARLENS_DEBUG", raising=False)
    book = write_sample_book(tmp_path / "teshi.pdf")
    project = tmp_path / "teshi.grammarlens"
    _ok(["ingest", str(book.path), "--project", str(project)])
    _ok(["code", str(project), "--feature", "GB020", "--value", "1", "--pin", "5,6", "--page", "2"])
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a CLDF dataset\n", encoding="utf-8")
    requests = tmp_path / "requests.jsonl"
    _ok(["profile", str(project), "--features", "GB021", "--no-reranker", "--base-url", llm_server.url,
         "--batch-out", str(requests)])
    batch_id = submit(requests, llm_settings).id
    cwd = tmp_path / "cwd"  # relative paths land here; ".." is still inside tmp_path
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return Setup(project, book.path, folder, requests, batch_id, llm_server.url, cwd)


# -- walking the parser -----------------------------------------------------------------------------------

def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command path, its parser) for every subcommand that has a handler."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, path + (name,))
    if parser.get_default("handler") is not None:
        yield path, parser


def _value_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The positionals and options that take a value (flags, --help, --version and subcommands excluded)."""
    return [a for a in parser._actions if a.nargs != 0
            and not isinstance(a, (argparse._SubParsersAction, argparse._HelpAction, argparse._VersionAction))]


def _base(path: tuple[str, ...], parser: argparse.ArgumentParser, s: Setup) -> list[str]:
    """A valid command line for the command (positionals first); the fuzzed value replaces or adds to it."""
    known = {
        ("code",): [str(s.project), "--feature", "GB020", "--value", "1"],
        ("paragraphs",): [str(s.project)],
        ("language",): [str(s.project)],
        ("ingest",): [str(s.pdf), "--project", str(s.project)],  # already ingested: a quick "nothing to do"
        ("profile",): [str(s.project), "--features", "GB020", "--no-reranker", "--base-url", s.url],
        ("export",): [str(s.project), "--format", "csv", "--out", "{fresh}"],
        ("bibtex",): [str(s.project)],
        ("feature-list",): [str(s.project)],
        ("retrieve",): [str(s.project), "--feature", "GB020", "--rerank", "none"],
        ("catalog",): ["GB020"],
        ("classify",): [str(s.project), "--feature", "GB020", "--no-reranker", "--base-url", s.url],
        ("demo",): ["{fresh}.pdf"],
        ("batch", "submit"): [str(s.requests), "--base-url", s.url],
        ("batch", "status"): [s.batch_id, "--base-url", s.url],
        ("batch", "fetch"): [s.batch_id, "--out", "{fresh}.jsonl", "--base-url", s.url],
        ("restore",): [str(s.project), "--list"],
    }
    if path in known:
        return list(known[path])
    argv: list[str] = []  # a command this file does not know yet: the project for positionals
    for action in _value_actions(parser):
        if not action.option_strings:
            argv.append(str(s.project))
        elif action.required:
            argv += [action.option_strings[0], action.choices and str(next(iter(action.choices))) or "x"]
    return argv


def _with_value(base: list[str], parser: argparse.ArgumentParser, action: argparse.Action, value: str,
                s: Setup) -> list[str]:
    argv = [s.fresh() if a == "{fresh}" else s.fresh(".pdf") if a == "{fresh}.pdf"
            else s.fresh(".jsonl") if a == "{fresh}.jsonl" else a for a in base]
    if action.option_strings:
        names = set(action.option_strings)
        for i, arg in enumerate(argv[:-1]):
            if arg in names:  # replace the base's value of this option
                del argv[i:i + 2]
                break
        return argv + [f"{action.option_strings[0]}={value}"]  # "=" so that "-1" or "" stay values
    index = [a for a in _value_actions(parser) if not a.option_strings].index(action)
    leading = next((i for i, a in enumerate(argv) if a.startswith("-")), len(argv))  # bases list positionals first
    if index < leading:
        argv[index] = value
    else:
        argv.insert(leading, value)
    return argv


# -- bad values -------------------------------------------------------------------------------------------

FIXED = [
    "", " ", "0", "-1", "-0", "+5", "1_000", "0x10", "1e309", "nan", "inf", "-inf", "3.5",
    str(2**63), str(2**64), "9" * 40, "-" + "9" * 40, "99999999999999999999999",
    "²", "½", "٣", "３", "1,,2", ",", " , ", "1,-2", "5,²",
    "\x00", "a\x00b", "\x1b[2J", "line\nbreak", "tab\there", "\r", "\x7f", "\x85", "\u200b", "\ufeff",
    os.fsdecode(b"\xff"), os.fsdecode(b"caf\xe9"), "\ud800",
    "x" * 5000, ".", "..", "~", "*", "?", "%s%n", "{}", "' OR 1=1 --", "--", "-", "http://", "ﬀ",
]


def _random_text(rng: random.Random) -> str:
    """Random bytes as the terminal delivers them (undecodable bytes become surrogates); no '/' (stay in tmp)."""
    raw = bytes(b if b != 0x2F else 0x5F for b in rng.randbytes(rng.randint(1, 24)))
    return os.fsdecode(raw)


def _values(rng: random.Random, s: Setup) -> list[str]:
    specials = [str(s.project), str(s.folder), str(s.pdf), f"{MISSING_DIR}/x.jsonl", str(s.project) + "-wal"]
    return FIXED + specials + [_random_text(rng) for _ in range(8)]


# -- the fuzz test ----------------------------------------------------------------------------------------

@pytest.mark.slow  # about 25 s on two busy cores, a third of it the first (failing) model load importing torch
def test_every_option_with_bad_values_exits_0_or_2_and_the_project_stays_intact(setup: Setup) -> None:
    rng = random.Random(SEED)
    s = setup
    parser = cli.build_parser()
    started = time.perf_counter()
    failures: list[str] = []
    parsed = handled = 0
    runs: list[tuple[tuple[str, ...], list[str]]] = []

    # 1. every (command, option, value) is parsed: a bad value is a UsageError (exit 2), never another exception
    for path, sub in _commands(parser):
        base = _base(path, sub, s)
        for action in _value_actions(sub):
            good, bad = [], []
            for value in _values(rng, s):
                argv = [*path, *_with_value(base, sub, action, value, s)]
                with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                    try:
                        parser.parse_args(argv)
                        good.append(argv)
                    except UsageError as exc:
                        if not exc.message or not exc.hint:
                            failures.append(f"parse refused without message or hint: {argv!r}")
                        bad.append(argv)
                    except SystemExit as exc:
                        failures.append(f"parse exit {exc.code}: {argv!r}")
                    except Exception as exc:
                        failures.append(f"parse raised {type(exc).__name__}: {exc}: {argv!r}")
                parsed += 1
            if any(path[:len(p)] == p for p in PARSE_ONLY):
                continue
            # 2. the handler runs for every value that parses (those reach the code) and a sample of the rest
            runs += [(path, argv) for argv in rng.sample(good, min(len(good), 10))]
            runs += [(path, argv) for argv in rng.sample(bad, min(len(bad), 2))]

    parse_seconds = time.perf_counter() - started
    codes: dict[tuple[str, ...], list[int]] = {}
    for path, argv in runs:
        code, out, err = _run(argv)
        codes.setdefault(path, []).append(code)
        handled += 1
        if code not in (0, 2) or "Traceback" in err or (code == 2 and "error: " not in err):
            failures.append(f"exit {code}: {argv!r}\n    {err.strip()[-500:]}")

    seconds = time.perf_counter() - started
    print(f"fuzz: {parsed} parsed in {parse_seconds:.1f} s, {handled} run through cli.main; {seconds:.1f} s in all")
    for path, got in codes.items():
        print(" ".join(path), {c: got.count(c) for c in sorted(set(got))})
    assert not failures, f"{len(failures)} failure(s):\n" + "\n".join(failures[:25])
    assert _integrity(s.project) == ("ok", APPLICATION_ID)
    assert _count(s.project, "paragraphs") >= 19  # others may be ingested (demo PDFs the fuzzing wrote)


def test_the_fuzz_walk_sees_every_command(setup: Setup) -> None:
    """The walk reaches nested subcommands (bench, batch) and each command's value options."""
    found = {path: [a.dest for a in _value_actions(sub)] for path, sub in _commands(cli.build_parser())}
    assert {("code",), ("export",), ("batch", "fetch"), ("bench", "profile")} <= set(found)
    assert {"pin", "unpin", "unpin_page", "note"} <= set(found[("code",)])


# -- the bugs of issue 19, one by one ---------------------------------------------------------------------

def _decisions(s: Setup) -> int:
    return _count(s.project, "decisions")


def _intact(s: Setup) -> None:
    assert _integrity(s.project) == ("ok", APPLICATION_ID)
    assert _count(s.project, "paragraphs") == 19


def _refused(argv: list[str], *words: str) -> str:
    code, out, err = _run(argv)
    assert code == 2, (argv, code, out, err)
    assert "\nerror: " in "\n" + err and "\nhint: " in err and "Traceback" not in err, err  # after any progress
    for word in words:
        assert word in err, (word, err)
    return err


@pytest.mark.parametrize("ids", ["99999999999999999999999", str(2**63), "²", "0", "5,²", "١"])
def test_code_refuses_paragraph_ids_sqlite_cannot_hold_or_that_are_not_ascii_digits(setup: Setup, ids: str) -> None:
    before = _decisions(setup)
    _refused(["code", str(setup.project), "--feature", "GB020", "--value", "1", f"--pin={ids}"],
             "is not a paragraph id")
    assert _decisions(setup) == before
    _intact(setup)


def test_a_note_in_another_encoding_is_refused_as_not_utf8_by_a_real_process(setup: Setup) -> None:
    before = _decisions(setup)
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    done = run_main("code", setup.project, "--feature", "GB020", "--value", "1", "--note", b"caf\xe9 \xff",
                    env=env, text=False)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and "Traceback" not in err, err
    assert "--note" in err and "not valid UTF-8" in err and "hint: " in err
    _refused(["code", str(setup.project), "--feature", "GB020", "--note", "see \x1b[2J"], "control characters")
    assert _decisions(setup) == before
    _intact(setup)


def test_export_refuses_a_file_a_project_a_pdf_a_missing_folder_and_an_old_export_without_force(setup: Setup) -> None:
    s = setup
    existing = s.cwd / "existing.csv"
    existing.write_text("mine\n", encoding="utf-8")
    export = ["export", str(s.project), "--format", "csv", "--out"]
    _refused([*export, str(existing)], "is a file, not a folder")
    assert existing.read_text(encoding="utf-8") == "mine\n"
    _refused([*export, str(s.project)], "GrammarLens project")
    _refused([*export, str(s.pdf)], "PDF")
    _refused([*export, f"{MISSING_DIR}/out"], "does not exist")
    out = s.cwd / "export"
    assert _run([*export, str(out)])[0] == 0
    (out / "profile.csv").write_text("edited by hand\n", encoding="utf-8")
    err = _refused([*export, str(out)], "already holds an export (profile.csv)")
    assert "--force" in err and (out / "profile.csv").read_text(encoding="utf-8") == "edited by hand\n"
    assert _run([*export, str(out), "--force"])[0] == 0
    assert (out / "profile.csv").read_text(encoding="utf-8").startswith("feature_id,")
    _intact(s)


def test_profile_batch_out_refuses_a_folder_a_missing_folder_and_never_overwrites_the_project(setup: Setup) -> None:
    s = setup
    other = s.cwd / "requests-other.jsonl"  # a project under another name is still a project
    from core.store import create_project

    create_project(other).close()
    profile = ["profile", str(s.project), "--features", "GB020", "--no-reranker", "--base-url", s.url, "--batch-out"]
    _refused([*profile, str(s.folder)], "is a folder, not a file")
    _refused([*profile, f"{MISSING_DIR}/x.jsonl"], f"The folder {MISSING_DIR}", "does not exist")
    _refused([*profile, str(s.project)], "is a GrammarLens project")
    _refused([*profile, str(other)], "is a GrammarLens project")
    _refused([*profile, str(s.project) + "-wal"], "belongs to the project")
    _refused([*profile, str(s.pdf)], "PDF")
    assert not list(s.project.parent.glob("*.part")) and not list(s.cwd.glob("*.part"))
    _intact(s)
    assert is_project_file(other)


def test_batch_fetch_out_refuses_a_folder_and_never_overwrites_the_project(setup: Setup) -> None:
    s = setup
    fetch = ["batch", "fetch", s.batch_id, "--base-url", s.url, "--out"]
    _refused([*fetch, str(s.folder)], "is a folder, not a file")
    _refused([*fetch, str(s.project)], "is a GrammarLens project")
    _refused([*fetch, f"{MISSING_DIR}/results.jsonl"], "does not exist")
    _intact(s)


def test_batch_in_that_is_the_project_or_holds_no_results_is_refused(setup: Setup) -> None:
    s = setup
    _refused(["profile", str(s.project), "--batch-in", str(s.project)], "is a GrammarLens project")
    _refused(["profile", str(s.project), "--batch-in", str(s.requests)], "is a requests file", "batch submit")
    _refused(["profile", str(s.project), "--batch-in", str(s.pdf)], "nothing was imported")
    _refused(["bibtex", str(s.project), "--set", str(s.project)], "is a GrammarLens project")
    _refused(["bibtex", str(s.project), "--set", str(s.pdf)], "is not UTF-8")
    _refused(["ingest", str(s.project), "--project", str(s.cwd / "new.grammarlens")], "not a grammar PDF")
    _intact(s)


def test_unpin_and_unpin_page_with_a_new_value_really_unpin(setup: Setup) -> None:
    s = setup
    code = ["code", str(s.project), "--feature", "GB021"]

    def pins() -> list[tuple]:
        data = json.loads(_run([*code, "--json"])[1])
        return [(p["paragraph_id"], p["page_label"]) for p in data["pins"]], data["value"]

    assert _run([*code, "--value", "1", "--pin", "5,6", "--page", "2"])[0] == 0
    assert _run([*code, "--value", "0", "--unpin", "5"])[0] == 0
    assert pins() == ([(6, "1"), (None, "2")], "0")
    assert _run([*code, "--value", "1", "--unpin-page", "2"])[0] == 0
    assert pins() == ([(6, "1")], "1")
    before = _decisions(s)
    _refused([*code, "--value", "0", "--unpin", "5"], "no such pin")  # refused as a whole: the value stays 1
    assert pins() == ([(6, "1")], "1") and _decisions(s) == before
    _intact(s)


def test_a_bug_is_named_with_exit_1_and_its_traceback_only_with_grammarlens_debug(setup: Setup, monkeypatch) -> None:
    import cli.code_commands

    def broken(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli.code_commands, "_code", broken)
    argv = ["code", str(setup.project), "--feature", "GB020"]
    code, _, err = _run(argv)
    assert code == 1 and "Traceback" not in err
    assert err.startswith("error: GrammarLens hit a bug: RuntimeError: boom\nhint: ") and "GRAMMARLENS_DEBUG=1" in err
    monkeypatch.setenv("GRAMMARLENS_DEBUG", "1")
    code, _, err = _run(argv)
    assert code == 1 and "Traceback" in err and "RuntimeError: boom" in err


# -- core.output_paths ------------------------------------------------------------------------------------

def test_output_paths_recognise_projects_through_sqlite_even_while_open(tmp_path: Path) -> None:
    from core.store import create_project

    live = create_project(tmp_path / "live.grammarlens")  # open, WAL mode: the header may live in the WAL only
    disguised = create_project(tmp_path / "notes.txt")
    try:
        assert is_project_file(live.path) and is_project_file(disguised.path)
        for target in (disguised.path, tmp_path / "live.grammarlens-wal", tmp_path / "new.grammarlens"):
            with pytest.raises(GrammarLensError):
                check_output_file(target)
        link = tmp_path / "link.jsonl"
        link.symlink_to(disguised.path)
        with pytest.raises(GrammarLensError, match="GrammarLens project"):
            check_output_file(link)
        with pytest.raises(GrammarLensError, match="GrammarLens project"):
            check_export_folder(disguised.path, "csv")
        odd = tmp_path / "we?ird#folder" / os.fsdecode(b"p%20q caf\xe9.txt")  # the URI must encode all of these
        odd.parent.mkdir()
        create_project(tmp_path / "plain.db").close()
        os.rename(tmp_path / "plain.db", odd)  # a rename: nobody reads a project's bytes
        assert is_project_file(odd)
        assert live.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"  # still usable
        with live.transaction():
            live.conn.execute("PRAGMA user_version")
    finally:
        live.close()
        disguised.close()


def test_output_paths_refuse_pdfs_and_databases_and_allow_plain_files(tmp_path: Path) -> None:
    pdf = tmp_path / "grammar.bin"
    pdf.write_bytes(b"%PDF-1.7\n%\xe2\xe3\n")
    assert is_pdf_file(pdf)
    with pytest.raises(GrammarLensError, match="PDF"):
        check_output_file(pdf)
    with pytest.raises(GrammarLensError, match="already exists"):
        check_output_file(pdf, pdf=True, overwrite=False)  # the demo PDF: over a PDF only with --force
    assert check_output_file(pdf, pdf=True) == pdf
    database = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    with pytest.raises(GrammarLensError, match="SQLite database"):
        check_output_file(database)
    empty, text = tmp_path / "empty.jsonl", tmp_path / "old.jsonl"
    empty.touch()
    text.write_text("{}\n", encoding="utf-8")
    assert check_output_file(empty) == empty and check_output_file(text) == text
    with pytest.raises(GrammarLensError, match="--force"):
        check_output_file(text, overwrite=False, force_option="--force")
    for bad in ("", "a\0b"):
        with pytest.raises(GrammarLensError):
            check_output_file(bad)
    with pytest.raises(GrammarLensError, match="not a folder"):
        check_output_file(text / "x.jsonl")


def test_export_files_are_what_the_exports_write(setup: Setup) -> None:
    """EXPORT_FILES (what --force protects) lists exactly the files each export format writes."""
    for fmt, names in EXPORT_FILES.items():
        out = setup.cwd / f"export-{fmt}"
        assert _run(["export", str(setup.project), "--format", fmt, "--out", str(out)])[0] == 0
        assert sorted(p.name for p in out.iterdir()) == sorted(names), fmt
        shutil.rmtree(out)
