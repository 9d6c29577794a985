"""The Sample window's batch files: one requests file for every project of the sample, the answers back in each."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from core.models import LabelSource
from core.store import open_project
from core.store.repository import insert_document
from tests.fixtures_profile_batch import server_results

SLOW_MS = 30000


def two_grammar_projects(llm_project, folder: Path) -> list[Path]:
    """Two projects of the sample: the test grammar, and a copy given a second grammar (another project)."""
    llm_project.project.close()
    (folder / "more").mkdir(parents=True)
    first, second = folder / "a.grammarlens", folder / "more" / "b.grammarlens"
    shutil.copy(llm_project.path, first)
    shutil.copy(llm_project.path, second)
    with open_project(second) as project:
        insert_document(project, sha256="1" * 64, file_name="more.pdf", path=str(folder / "more.pdf"),
                        title="More Testish", page_count=1, label_source=LabelSource.PDF_LABELS,
                        pdf_page_of_printed_1=1, pages=[], paragraphs=[])
    return [first, second]


def predicted(path: Path) -> list[tuple[str, str]]:
    with open_project(path, readonly=True) as project:
        return project.conn.execute(
            "SELECT v.feature_id, v.label FROM classification_values v ORDER BY v.feature_id").fetchall()


def test_the_sample_window_writes_one_batch_file_and_imports_its_answers(qtbot, main_window, llm_project,
                                                                        llm_server, tmp_path) -> None:
    from gui.common.settings import AppSettings
    from gui.window.sample_wiring import open_sample

    first, second = two_grammar_projects(llm_project, tmp_path / "sample")
    main_window.apply_settings(AppSettings.local_server(llm_server.url, model="gpt-4o", reranker=None,
                                                        timeout_s=10.0))
    window = open_sample(main_window, tmp_path / "sample")
    qtbot.waitUntil(lambda: window.view is not None, timeout=SLOW_MS)
    files = window.batch_files
    assert files.act_write.text() == "Write batch file…" and files.act_import.text() == "Import batch results…"

    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    with qtbot.waitSignal(files.finished, timeout=SLOW_MS) as done:
        files.write(requests, "81A,GB107")
    assert done.args == ["written"] and files.last_report.written == 4  # two features of two projects
    lines = [json.loads(raw) for raw in requests.read_text(encoding="utf-8").splitlines()]
    assert len({line["custom_id"] for line in lines}) == 4 and not llm_server.chat_requests  # nothing asked
    assert window.statusBar().currentMessage().startswith("Wrote 4 request(s) of '81A,GB107'")

    llm_server.add_rule("verb-final", "SOV")
    server_results(llm_server, requests, results)
    with qtbot.waitSignal(window.loaded, timeout=SLOW_MS), qtbot.waitSignal(files.finished, timeout=SLOW_MS) as done:
        files.import_results(results)
    assert done.args == ["imported"] and files.last_report.imported == 4
    assert ("81A", "SOV") in predicted(first) and predicted(first) == predicted(second)  # each into its project
    assert "81A" in window.view.feature_ids  # the sample was read again: the predictions are in the heatmap
    window.close()
