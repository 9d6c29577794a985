"""The Sample window over real project files built with core: reading in a worker, reference flags, opening a cell."""

from __future__ import annotations

from pathlib import Path

from bench.sample_window import build_sample

SHARED_CLDF = Path(__file__).resolve().parents[3] / "shared" / "cldf"
SLOW_MS = 30000


def test_sample_window_reads_a_folder_and_flags_the_reference(qtbot, tmp_path) -> None:
    from gui.sample.window import SampleWindow

    paths = build_sample(tmp_path / "sample", 8)
    window = SampleWindow()
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.loaded, timeout=SLOW_MS):
        window.load(tmp_path / "sample", SHARED_CLDF)
    view = window.view
    assert len(view.languages) == 8 and {lang.project_path for lang in view.languages} == set(paths)
    assert all(lang.has_coordinates and lang.macroarea for lang in view.languages)
    assert "GB107" in view.feature_ids and window.map.feature_id == "GB107"
    assert view.reference_name == "Grambank and WALS"
    flagged = [c for c in view.cells.values() if c.disagrees]
    assert flagged and all(c.reference_code != c.code for c in flagged)
    assert window.open_seconds is not None and window.open_seconds < 3.0
    with qtbot.waitSignal(window.compared, timeout=SLOW_MS):  # core's scorer, after the heatmap
        pass
    titles = [s.title for s in window.plot.series]
    assert titles[0].endswith("per feature") and titles[1].endswith("per feature group")
    assert {row.feature_id for row in window.plot.series[0].rows} <= set(view.feature_ids)
    window.group_box.setCurrentText("clause")
    assert window.heatmap.features and all(view.groups[f] == "clause" for f in window.heatmap.features)
    assert window.heatmap.cell > 14  # the cells fit the window, larger than the smallest
    with qtbot.waitSignal(window.compared, timeout=SLOW_MS):  # the switch rescores with coders' decisions only
        window.reviewed_only.setChecked(True)
    assert "coders' decisions only" in window.plot.series[0].title
    window.colour_box.setCurrentIndex(1)
    assert window.map.colour_by == "family"
    window.close()


def test_a_second_coders_folder_gives_the_coder_agreement_plot(qtbot, tmp_path) -> None:
    from gui.sample.window import SampleWindow

    build_sample(tmp_path / "a", 5, seed=1, coder="ana")
    build_sample(tmp_path / "b", 5, seed=2, coder="ben")
    window = SampleWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=SLOW_MS):
        window.load(tmp_path / "a")
    with qtbot.waitSignal(window.compared, timeout=SLOW_MS):
        window.compare_with(tmp_path / "b")
    series = window.plot.series[-1]
    assert "two coders" in series.title and series.rows
    assert all(0.0 <= r.agreement <= 1.0 for r in series.rows)


def test_clicking_a_cell_opens_that_project_at_that_feature(qtbot, main_window, tmp_path) -> None:
    from PySide6.QtCore import Qt

    from gui.window.sample_wiring import open_sample

    build_sample(tmp_path / "sample", 3)
    assert main_window.act_sample.text() == "Open &sample folder…"
    sample = open_sample(main_window, tmp_path / "sample")
    assert main_window.sample_window is sample  # the window owns what it opened
    qtbot.waitUntil(lambda: sample.view is not None, timeout=SLOW_MS)
    heatmap = sample.heatmap
    row, column = 1, heatmap.features.index("GB107")
    language = heatmap.languages[row]
    with qtbot.waitSignal(main_window.projectOpened, timeout=SLOW_MS):
        qtbot.mouseClick(heatmap, Qt.MouseButton.LeftButton, pos=heatmap.cell_rect(row, column).center())
    assert Path(main_window.state.project_path) == language.project_path
    qtbot.waitUntil(lambda: main_window.state.feature is not None and main_window.state.feature.id == "GB107",
                    timeout=SLOW_MS)
    sample.close()


def test_a_wrong_reference_folder_still_shows_the_sample_and_says_why(qtbot, tmp_path) -> None:
    from gui.sample.window import SampleWindow

    build_sample(tmp_path / "sample", 3)
    (tmp_path / "not-cldf").mkdir()
    window = SampleWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=SLOW_MS):
        window.load(tmp_path / "sample", tmp_path / "not-cldf")
    assert len(window.view.languages) == 3 and not any(c.disagrees for c in window.view.cells.values())
    assert "reference not used: No CLDF values found" in window.statusBar().currentMessage()


def test_the_sample_window_reads_the_sample_again_after_an_act_on_a_project_of_it(qtbot, main_window, tmp_path) -> None:
    """The Sample window follows the one change record: the open project is in its folder, a value set there shows."""
    from gui.window.sample_wiring import open_sample

    build_sample(tmp_path / "sample", 3)
    sample = open_sample(main_window, tmp_path / "sample")
    qtbot.waitUntil(lambda: sample.view is not None, timeout=SLOW_MS)
    language = sample.view.languages[0]
    assert main_window.open_project(language.project_path, "GB107")
    qtbot.waitUntil(lambda: main_window.state.feature is not None, timeout=SLOW_MS)
    before = sample.view.cell(language, "GB107")
    value = "0" if before is not None and before.code == "1" else "1"
    with qtbot.waitSignal(sample.loaded, timeout=SLOW_MS):
        assert main_window.coding.set_value(value)
    again = next(lang for lang in sample.view.languages if lang.key == language.key)
    assert sample.view.cell(again, "GB107").code == value
    sample.close()
