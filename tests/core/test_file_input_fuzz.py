"""The fuzz test of the command line, extended to the files the commands read (issue 26, item 12).

Each file option gets files of the wrong size, depth and bytes: a sparse 512 MB file, ``/dev/zero``, a
JSON line nested 100,000 deep, random bytes, NUL bytes, an empty file, a folder.  Every run is a
real process; each must end with exit 0 or 2 (``error:`` + ``hint:``), never a traceback, a "bug" or
memory exhaustion, and the project must stay intact.  The results file mixes good lines with bad
ones: the bad lines are reported by number and the good ones imported.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.batch_results import result_lines, write_requests
from tests.cli_runs import run_cli
from tests.core.test_batch_import_garbage import GOOD

REPO = Path(__file__).resolve().parents[2]
LIMIT_S = 120  # a safety net for a run that reads without bound (it would be killed): not a timing


def _run_here(*args: str) -> tuple[int, str]:
    """cli.main in this process (fast) for files that cannot exhaust memory even when read whole."""
    code, _, err = run_cli(*args)
    return code, err


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    # 2 GB of address space: a command that reads a 4 GB file whole dies here instead of swapping the machine
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30));"
    return subprocess.run([sys.executable, "-c", f"{limit} import sys, cli; sys.exit(cli.main(sys.argv[1:]))",
                           *args], cwd=REPO, capture_output=True, timeout=LIMIT_S, env=env)


def _bad_files(folder: Path) -> dict[str, Path]:
    rng = random.Random(26)
    folder.mkdir()
    files = {}
    sparse = folder / "sparse.bin"
    with open(sparse, "wb") as fh:
        fh.truncate(512 * 2**20)  # takes no room; still far more than a BibTeX entry or a groups table
    files["sparse 512 MB"] = sparse
    files["/dev/zero"] = Path("/dev/zero")
    deep = folder / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="ascii")
    files["nested 100,000 deep"] = deep
    noise = folder / "noise.bin"
    noise.write_bytes(rng.randbytes(200_000))
    files["random bytes"] = noise
    nul = folder / "nul.bin"
    nul.write_bytes(b"\x00" * 100_000)
    files["NUL bytes"] = nul
    empty = folder / "empty.txt"
    empty.write_bytes(b"")
    files["empty"] = empty
    files["a folder"] = folder
    return files


@pytest.fixture(scope="module")
def project_and_requests(tmp_path_factory) -> tuple[Path, Path]:
    return write_requests(tmp_path_factory.mktemp("filefuzz"), "testish.grammarlens", GOOD)


@pytest.mark.slow
def test_every_file_option_with_bad_files_exits_0_or_2(project_and_requests, tmp_path: Path) -> None:
    project, _ = project_and_requests
    files = _bad_files(tmp_path / "bad")
    commands = {
        "bibtex --set": lambda f: ["bibtex", str(project), "--set", str(f)],
        "profile --batch-in": lambda f: ["profile", str(project), "--batch-in", str(f)],
        "batch submit": lambda f: ["batch", "submit", str(f), "--base-url", "http://127.0.0.1:9/v1"],
        "restore --from": lambda f: ["restore", str(project), "--from", str(f)],
        "compare --groups": lambda f: ["compare", str(project), str(project), "--groups", str(f)],
        "project argument": lambda f: ["language", str(f)],
    }
    failures = []
    seconds: dict[str, float] = {}
    for name, argv_of in commands.items():
        for kind, path in files.items():
            if kind == "a folder" and name == "project argument":
                continue
            started = time.perf_counter()
            if kind in ("sparse 512 MB", "/dev/zero"):  # in a process of its own, with its memory bounded
                result = _run(*argv_of(path))
                code, err = result.returncode, result.stderr.decode("utf-8", "replace")
            else:
                code, err = _run_here(*argv_of(path))
            seconds[f"{name} / {kind}"] = time.perf_counter() - started
            if code not in (0, 2) or "Traceback" in err or "hit a bug" in err or (code == 2 and "error:" not in err):
                failures.append(f"{name} with {kind}: exit {code}: {err.strip()[-300:]}")
    conn = sqlite3.connect(f"{project.as_uri()}?mode=ro", uri=True)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    slowest = sorted(seconds.items(), key=lambda kv: -kv[1])[:3]
    print(f"file fuzz: {len(seconds)} runs in {sum(seconds.values()):.0f} s; slowest {slowest}")
    assert not failures, "\n".join(failures)


def test_a_deep_line_in_a_results_file_costs_its_line_only(project_and_requests, tmp_path: Path) -> None:
    project, requests = project_and_requests
    good = result_lines(requests)
    results = tmp_path / "results.jsonl"
    lines = [good[0], b"[" * 100_000 + b"]" * 100_000, b'{"a": ' * 5_000 + b"1" + b"}" * 5_000, *good[1:]]
    results.write_bytes(b"\n".join(lines) + b"\n")
    copy = tmp_path / "testish.grammarlens"
    copy.write_bytes(project.read_bytes())
    code, out, err = run_cli("profile", copy, "--batch-in", results, "--json")
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["imported"] == len(good)
    assert {p["line"] for p in report["problems"]} >= {2, 3}  # the bad lines, by number
