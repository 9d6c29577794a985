"""Project files written at every earlier schema version open with today's code, upgraded and whole.

For each version k in 1..N-1 (N = the newest migration, so migrations added later are covered
without touching this file) a project file is built the way the GrammarLens of schema k left it:
migrations 1..k applied, then data in *every* table of that schema.  The known tables get
realistic rows (a grammar's paragraphs with their FTS index, embeddings, a retrieval run, a
classification with values, evidence and reviews, the LLM cache, a profile job, a feature list);
a table this file does not know (a later migration's) gets generic rows that respect its foreign
keys.  The file is closed, opened with :func:`core.store.open_project`, and must come back at
version N, intact (``integrity_check``, ``foreign_key_check``), with every row and every value of
every column it had before, and readable through the public store API.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import sqlite_utils

from core.store import open_project
from core.store.database import APPLICATION_ID
from core.store.migrations import MIGRATIONS

LATEST = len(MIGRATIONS)
FTS_PREFIX = "paragraphs_fts"
PARAGRAPHS = [
    ("Preface", "This grammar describes Testish, spoken in the hills.", "prose", "v"),
    ("4 Syntax > 4.1 Word order", "The basic order of Testish clauses is subject object verb.", "prose", "87"),
    ("4 Syntax > 4.1 Word order", "(12) ani kato mira\n1SG cat see\n'I see the cat.'", "example", "87"),
    ("4 Syntax > 4.2 Questions", "Polar questions end in the particle =ka.", "prose", "88"),
    ("References", "Dryer, Matthew S. 2013. Order of subject, object and verb.", "bibliography", "301"),
]


def _tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                        "ORDER BY name").fetchall()
    return [r[0] for r in rows if not r[0].startswith(FTS_PREFIX)]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info([{table}])")]


def _fill_known(conn: sqlite3.Connection, version: int) -> None:
    """Rows as the GrammarLens of schema ``version`` wrote them (raw SQL: that code is gone)."""
    stamp = "2025-03-01T10:00:00+00:00"
    conn.execute("INSERT INTO meta (key, value) VALUES ('created_by', 'GrammarLens 0.1')")
    conn.execute("INSERT INTO language (id, name, glottocode, source) VALUES (1, 'Testish', 'test1234', 'user')")
    conn.execute(
        "INSERT INTO documents (id, sha256, file_name, path, title, page_count, label_source, pdf_page_of_printed_1, "
        "bibtex, ingested_at, seconds) VALUES (1, ?, 'testish.pdf', '/tmp/testish.pdf', 'A grammar of Testish', 320, "
        "'pdf_labels', 14, '@book{t, title={Testish}}', ?, 12.5)", ("ab" * 32, stamp))
    conn.executemany(
        "INSERT INTO pages (document_id, pdf_page, page_label, label_source, width, height, chars) "
        "VALUES (1, ?, ?, 'pdf_labels', 595.0, 842.0, ?)",
        [(5, "v", 1800), (100, "87", 2500), (101, "88", 2400), (314, "301", 3000)])
    pdf_page = {"v": 5, "87": 100, "88": 101, "301": 314}
    conn.executemany(
        "INSERT INTO paragraphs (id, document_id, seq, pdf_page, page_label, label_source, section, kind, "
        "example_number, text, rects) VALUES (?, 1, ?, ?, ?, 'pdf_labels', ?, ?, ?, ?, ?)",
        [(i + 1, i, pdf_page[label], label, section, kind, "12" if kind == "example" else None, text,
          json.dumps([[pdf_page[label], 72.0, 100.0 + i, 523.0, 140.0 + i]]))
         for i, (section, text, kind, label) in enumerate(PARAGRAPHS)])
    conn.execute("INSERT INTO paragraphs_fts (rowid, text, section) SELECT id, text, section FROM paragraphs")
    if version >= 2:
        conn.executemany(
            "INSERT INTO embeddings (paragraph_id, model, text_hash, dim, vector) "
            "VALUES (?, 'all-MiniLM-L6-v2', ?, 4, ?)",
            [(i, f"hash{i}", np.arange(4, dtype=np.float32).tobytes()) for i in (1, 2, 3)])
        conn.execute(
            "INSERT INTO retrieval_runs (id, feature_id, settings, query, created_at, seconds) "
            "VALUES (1, '81A', ?, 'order of subject object verb', ?, 0.4)",
            (json.dumps({"bm25_top": 50, "final_top": 20, "ranking": "combined"}), stamp))
        conn.executemany(
            "INSERT INTO retrieval_hits (run_id, rank, paragraph_id, score, signals) VALUES (1, ?, ?, ?, ?)",
            [(1, 2, 3.5, json.dumps({"bm25": 7.1})), (2, 3, 2.25, json.dumps({"bm25": 5.0})),
             (3, 5, 0.5, json.dumps({"bm25": 4.0}))])
    if version >= 3:
        conn.execute(
            "INSERT INTO classifications (id, created_at, feature_id, feature_name, config, language, model, base_url, "
            "llm_settings, retrieval_settings, retrieval_run_id, answer_format, prompt_hash, raw_answer, reasoning, "
            "status, problem, flags, evidence_note, prompt_tokens, completion_tokens, evidence_tokens, cost_usd, "
            "seconds, cached) VALUES (1, ?, '81A', 'Order of Subject, Object and Verb', 'rag', 'Testish', 'gpt-4o', "
            "'https://api.openai.com/v1', '{\"model\": \"gpt-4o\"}', '{\"bm25_top\": 50}', 1, 'json_schema', 'ph1', "
            "'{\"value\": \"SOV\"}', 'Paragraph 1 says SOV.', 'ok', NULL, '[]', '', 1500, 120, 900, 0.0051, 2.5, 0)",
            (stamp,))
        conn.execute("INSERT INTO classification_values (classification_id, feature_id, code, label) "
                     "VALUES (1, '81A', '1', 'SOV')")
        conn.executemany(
            "INSERT INTO classification_evidence (classification_id, paragraph_id, rank, prompt_number, score, "
            "page_label, cited) VALUES (1, ?, ?, ?, ?, ?, ?)",
            [(2, 1, 1, 3.5, "87", 1), (3, 2, 2, 2.25, "87", 0)])
        conn.executemany(
            "INSERT INTO reviews (id, classification_id, created_at, reviewer, action, feature_id, code, label, note) "
            "VALUES (?, 1, ?, 'ana', ?, '81A', NULL, NULL, ?)",
            [(1, stamp, "accept", None), (2, "2025-03-01T10:05:00+00:00", "note", "Checked on p. 87.")])
        conn.execute(
            "INSERT INTO llm_cache (key, model, prompt_hash, content, prompt_tokens, completion_tokens, created_at, "
            "hits) VALUES ('k1', 'gpt-4o', 'ph1', '{\"value\": \"SOV\"}', 1500, 120, ?, 2)", (stamp,))
    if version >= 4:
        conn.execute(
            "INSERT INTO profile_jobs (id, created_at, updated_at, feature_set, job_key, mode, settings, state, "
            "mark_classification_id, mark_retrieval_run_id) VALUES (1, ?, ?, 'paper', 'jk1', 'llm', ?, 'cancelled', "
            "0, 0)", (stamp, stamp, json.dumps({"mode": "llm", "config": "rag"})))
        conn.executemany(
            "INSERT INTO profile_job_items (job_id, seq, feature_id, state, classification_id, retrieval_run_id, "
            "error, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
            [(0, "81A", "done", 1, 1, None, stamp), (1, "49A", "failed", None, None, "timed out", stamp)])
        conn.execute("INSERT INTO feature_lists (name, feature_ids, created_at) VALUES ('mine', ?, ?)",
                     (json.dumps(["81A", "GB107"]), stamp))


def _generic_value(table: str, column: str, declared: str, row: int) -> object:
    kind = declared.upper()
    if "INT" in kind:
        return row + 1
    if "REAL" in kind or "FLOA" in kind or "DOUB" in kind:
        return row + 0.5
    if "BLOB" in kind:
        return bytes([row, 1, 2])
    return f"{table}.{column}.{row}"


def _fill_unknown(conn: sqlite3.Connection, table: str, rows: int = 2) -> None:
    """Rows for a table of a later migration, each foreign key pointing at an existing row."""
    info = conn.execute(f"PRAGMA table_info([{table}])").fetchall()
    fks = {r[3]: (r[2], r[4]) for r in conn.execute(f"PRAGMA foreign_key_list([{table}])")}
    single_int_pk = [c for c in info if c[5]] and len([c for c in info if c[5]]) == 1 and \
        "INT" in next(c for c in info if c[5])[2].upper()
    for i in range(rows):
        names, values = [], []
        for _cid, name, declared, _notnull, _default, pk in info:
            if pk and single_int_pk:
                continue
            if name in fks:
                parent, parent_col = fks[name]
                if parent == table:
                    value = None  # a self-reference (e.g. an undo row): none needed for the copy to be checked
                else:
                    parent_col = parent_col or _columns(conn, parent)[0]
                    found = conn.execute(f"SELECT [{parent_col}] FROM [{parent}] ORDER BY rowid LIMIT 1").fetchone()
                    assert found is not None, f"{table}.{name} needs a row in {parent}"
                    value = found[0]
            else:
                value = _generic_value(table, name, declared or "", i)
            names.append(f"[{name}]")
            values.append(value)
        conn.execute(f"INSERT INTO [{table}] ({', '.join(names)}) VALUES ({', '.join('?' * len(values))})", values)


def _fill_order(conn: sqlite3.Connection, tables: list[str]) -> list[str]:
    """Tables with their foreign-key parents first."""
    parents = {t: {r[2] for r in conn.execute(f"PRAGMA foreign_key_list([{t}])")} - {t} for t in tables}
    ordered: list[str] = []
    while len(ordered) < len(tables):
        ready = [t for t in tables if t not in ordered and parents[t] <= set(ordered)]
        assert ready, f"foreign-key cycle among {set(tables) - set(ordered)}"
        ordered.extend(sorted(ready))
    return ordered


def build_project_at(path: Path, version: int) -> dict[str, list[tuple]]:
    """A project file at schema ``version`` with rows in every table; returns each table's rows."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    db = sqlite_utils.Database(conn)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    for number, migration in enumerate(MIGRATIONS[:version], start=1):
        with db.atomic():
            migration(db)
            conn.execute(f"PRAGMA user_version = {number}")
    with conn:
        _fill_known(conn, version)
        for table in _fill_order(conn, _tables(conn)):
            if conn.execute(f"SELECT count(*) FROM [{table}]").fetchone()[0] == 0:
                _fill_unknown(conn, table)
    snapshot = {t: _rows(conn, t, _columns(conn, t)) for t in _tables(conn)}
    assert all(snapshot.values()), f"empty tables at version {version}: {[t for t, r in snapshot.items() if not r]}"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == version
    conn.close()
    return snapshot


def _rows(conn: sqlite3.Connection, table: str, columns: list[str]) -> list[tuple]:
    cols = ", ".join(f"[{c}]" for c in columns)
    return sorted(conn.execute(f"SELECT {cols} FROM [{table}]").fetchall(), key=repr)


@pytest.mark.parametrize("version", range(1, LATEST))
def test_a_project_of_an_earlier_schema_opens_upgraded_and_whole(tmp_path: Path, version: int) -> None:
    path = tmp_path / f"schema{version}.grammarlens"
    before = build_project_at(path, version)
    conn = sqlite3.connect(path)
    columns_before = {t: _columns(conn, t) for t in before}
    conn.close()

    with open_project(path) as project:
        conn = project.conn
        assert project.schema_version() == LATEST
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        for table, rows in before.items():
            now_columns = _columns(conn, table)
            kept = [c for c in columns_before[table] if c in now_columns]
            assert kept == columns_before[table], f"{table} lost columns {set(columns_before[table]) - set(kept)}"
            assert _rows(conn, table, kept) == rows, f"rows of {table} changed by the upgrade from {version}"
        _check_public_reads(project, version, set(before))

    with open_project(path) as again:  # a second open finds nothing left to migrate
        assert again.schema_version() == LATEST


def _check_public_reads(project, version: int, old_tables: set[str]) -> None:
    """What the app shows of the old data, through the store's public functions."""
    from core.store import repository

    assert repository.get_language(project).glottocode == "test1234"
    (doc,) = repository.list_documents(project)
    assert (doc.title, doc.page_count, doc.pdf_page_of_printed_1) == ("A grammar of Testish", 320, 14)
    paragraphs = repository.list_paragraphs(project, doc.id)
    assert [p.text for p in paragraphs] == [text for _s, text, _k, _l in PARAGRAPHS]
    assert paragraphs[2].example_number == "12" and paragraphs[2].rects[0].pdf_page == 100
    assert repository.page_labels(project, doc.id)[101] == "88"
    hits = project.conn.execute("SELECT rowid FROM paragraphs_fts WHERE paragraphs_fts MATCH 'particle'").fetchall()
    assert hits == [(4,)]
    if version >= 2:
        from core.retrieval import load_retrieval_run
        from core.store.embeddings import get_embeddings

        feature_id, settings, run_hits = load_retrieval_run(project, 1)
        assert (feature_id, settings.bm25_top, [h.paragraph.id for h in run_hits]) == ("81A", 50, [2, 3, 5])
        assert run_hits[0].signals == {"bm25": 7.1}
        vectors = get_embeddings(project, "all-MiniLM-L6-v2", [1, 2, 3])
        assert vectors[2][0] == "hash2" and vectors[2][1].tolist() == [0.0, 1.0, 2.0, 3.0]
    if version >= 3:
        from core.llm.cache import ProjectCache
        from core.store.classifications import get_classification
        from tests.reviews import list_reviews

        c = get_classification(project, 1)
        assert c is not None and [v.label for v in c.values] == ["SOV"] and c.cost_usd == 0.0051
        assert [(e.paragraph_id, e.cited) for e in c.evidence] == [(2, True), (3, False)]
        assert c.evidence[0].text == PARAGRAPHS[1][1]
        assert ProjectCache(project).get("k1").content == '{"value": "SOV"}'
        if "decisions" not in old_tables:  # written while reviews were stored in ``reviews`` (before schema 5)
            assert [r.action for r in list_reviews(project, 1)][:1] == ["accept"], "old reviews must still show"
    if version >= 4:
        from core.store.feature_lists import list_feature_lists
        from core.store.profile_jobs import get_job

        job = get_job(project, 1)
        assert job is not None and job.state == "cancelled" and job.done == ["81A"] and job.pending == ["49A"]
        assert list_feature_lists(project) == {"mine": ["81A", "GB107"]}
