"""The ingestion CLI as a user runs it: real processes, real files, exit codes and messages."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import __version__
from core.store import create_project, open_project
from core.store.repository import list_documents
from tests.cli_runs import run_main
from tests.fixtures_ingest import SampleBook
from tests.fixtures_shared import GRAMMARS

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return run_main(*args, timeout=timeout)


def test_version() -> None:
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"GrammarLens {__version__} (from source)"


def test_ingest_then_paragraphs_json(sample_book: SampleBook, tmp_path: Path) -> None:
    project = tmp_path / "cli.grammarlens"
    out = run_cli("ingest", str(sample_book.path), "--project", str(project), "--glottocode", "tesh1234")
    assert out.returncode == 0, out.stderr
    assert "19 paragraphs" in out.stdout and "Teshi (tesh1234" in out.stdout
    assert "reading pages" in out.stderr  # progress goes to stderr
    listed = json.loads(run_cli("paragraphs", str(project), "--json").stdout)
    assert [p["text"] for p in listed] == [t.text for t in sample_book.truth]
    first = listed[0]
    assert set(first) >= {"id", "pdf_page", "page_label", "label_source", "section", "kind", "rects", "text"}
    assert first["pdf_page"] == 1 and first["page_label"] == "i" and first["label_source"] == "pdf_labels"
    assert all(len(r) == 5 and r[0] >= 1 for p in listed for r in p["rects"])
    again = run_cli("ingest", str(sample_book.path), "--project", str(project))
    assert again.returncode == 0 and "already in" in again.stdout


def test_failures_exit_non_zero_with_one_clear_message(tmp_path: Path) -> None:
    not_pdf = tmp_path / "grammar.pdf"
    not_pdf.write_text("not a pdf at all", encoding="utf-8")
    out = run_cli("ingest", str(not_pdf), "--project", str(tmp_path / "p.grammarlens"))
    assert out.returncode == 2
    assert out.stderr.startswith("error: grammar.pdf is not a PDF file.") and "hint:" in out.stderr
    assert "Traceback" not in out.stderr
    out = run_cli("paragraphs", str(tmp_path / "missing.grammarlens"), "--json")
    assert out.returncode == 2 and "does not exist" in out.stderr


@pytest.mark.slow
def test_bench_ingest_json(tmp_path: Path) -> None:
    pdf = GRAMMARS / "354_Iranian_Armenian.pdf"
    out = run_cli("bench", "ingest", str(pdf), "--json")
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)
    assert set(row) == {"file", "pages", "paragraphs", "seconds", "raw_seconds", "ratio", "cpu_seconds",
                        "raw_cpu_seconds", "cpu_ratio"}
    assert row["pages"] == 228 and row["paragraphs"] > 1000
    assert row["ratio"] == pytest.approx(row["seconds"] / row["raw_seconds"], rel=0.01)
    assert row["cpu_ratio"] == pytest.approx(row["cpu_seconds"] / row["raw_cpu_seconds"], rel=0.01)


@pytest.mark.slow
def test_kill_9_mid_ingest_leaves_an_intact_project_that_ingests_again(tmp_path: Path) -> None:
    """Kill the ingest while it writes (the WAL is growing), then check and ingest again."""
    project = tmp_path / "killed.grammarlens"
    with create_project(project) as db:
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = Path(f"{project}-wal")
    pdf = GRAMMARS / "078_Papuan_Malay.pdf"
    killed_while_writing = False
    for _attempt in range(3):
        proc = subprocess.Popen([sys.executable, str(REPO / "main.py"), "ingest", str(pdf), "--project", str(project)],
                                cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if wal.exists() and wal.stat().st_size > 256 * 1024:
                os.kill(proc.pid, signal.SIGKILL)
                killed_while_writing = True
                break
            time.sleep(0.005)
        proc.wait(timeout=60)
        if killed_while_writing:
            break
    assert killed_while_writing, "the ingest finished before it could be killed mid-write"
    conn = sqlite3.connect(project)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM paragraphs").fetchone()[0] == 0
    conn.close()
    out = run_cli("ingest", str(pdf), "--project", str(project))
    assert out.returncode == 0, out.stderr
    with open_project(project) as db:
        assert len(list_documents(db)) == 1
        assert db.conn.execute("SELECT COUNT(*) FROM paragraphs_fts").fetchone()[0] > 5000
