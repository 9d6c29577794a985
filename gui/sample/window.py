"""The Sample window: a folder of projects as a heatmap, a map and agreement plots.

Opened from *Sample → Open sample folder…* (:mod:`gui.sample.opening`, :func:`show_sample_window`).
Reading the sample runs as an :class:`gui.common.operations.Operation` (read-only snapshots of every project,
:func:`core.sample.snapshot.read_sample`; the reference's values; the view records of
:mod:`core.sample.view_data`), with progress and Cancel in the window's task bar; the widgets are
filled on the UI thread from the finished records.  Clicking a heatmap cell or a map point emits
:attr:`SampleWindow.cellActivated` (project path, feature id): the main window opens that project
at that feature.  Every figure exports as PNG or SVG (:mod:`gui.sample.figures`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QMainWindow, QScrollArea, QTabWidget, QToolBar, QWidget

from core.errors import GrammarLensError
from core.progress import Progress
from core.sample import view_data
from gui.common import file_dialogs
from gui.common.error_reporting import ErrorReporter
from gui.common.operations import Operation, OperationRunner
from gui.common.task_bar import TaskBar
from gui.sample.agreement_plot import AgreementPlot
from gui.sample.figures import export_figure
from gui.sample.heatmap import HeatmapWidget
from gui.sample.map_legend import COLOUR_MODES
from gui.sample.map_view import MapWidget
from gui.sample.palette import ValuePalette

if TYPE_CHECKING:  # read lazily in the job: the window opens without loading the sample readers
    from core.sample.snapshot import SampleRead

ALL_GROUPS = "All feature groups"
MAP_DEFAULT = "GB107"  # the map's first feature when the sample has it (the paper's negation feature)


@dataclass
class SampleLoad:
    """What the reading job hands to the window (plain data, built off the UI thread)."""

    view: view_data.SampleView
    read: SampleRead  # the read the view was built from
    icons: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)
    reference_problem: str = ""  # why the reference folder gave no values (the sample is shown without them)


def read_sample_view(folder: Path, reference: Path | None, progress: Progress) -> SampleLoad:
    """The job: read every project read-only, the reference's values and groups, and build the view."""
    from core.sample.groups import find_grouping, load_groups
    from core.sample.snapshot import read_sample

    read = read_sample(folder, on_progress=lambda done, total, path: progress.step(
        done, total + 1, f"{path.name} ({done} of {total})"), is_cancelled=lambda: progress.cancelled)
    snapshots = read.by_language()
    try:
        references, name = view_data.read_references(reference, [s.glottocode for s in snapshots])
        problem = ""
    except GrammarLensError as exc:  # a wrong reference folder: the sample still shows, without its flags
        references, name, problem, reference = {}, "", f"{exc.message} {exc.hint}".strip(), None
    groups = load_groups(find_grouping(reference)) if reference else {}
    view = view_data.build_view(snapshots, references=references, reference_name=name, groups=groups)
    progress.step(1, 1, "drawing")
    return SampleLoad(view, read, view_data.read_wals_icons(reference), groups, read.problems, problem)


class SampleWindow(QMainWindow):
    """Heatmap, map and agreement of one sample folder; emits :attr:`cellActivated` to open a project."""

    cellActivated = Signal(str, str)  # project path, feature id
    loaded = Signal()  # the sample's view is shown (the heatmap populated)
    compared = Signal()  # the second coder's agreement is shown

    def __init__(self, runner: OperationRunner | None = None, store: QSettings | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        # its own runner has no Qt parent: a result queued while the window is deleted still finds it alive
        self.runner = runner or OperationRunner()
        self.store = store
        self.folder: Path | None = None
        self.reference: Path | None = None
        self.view: view_data.SampleView | None = None
        self.palette_ = ValuePalette()
        self.coder_series: view_data.AgreementSeries | None = None
        self.reference_series: list[view_data.AgreementSeries] = []
        self.operation: Operation | None = None
        self.opened_at = 0.0
        self.open_seconds: float | None = None
        self.errors = ErrorReporter(self, lambda text, ms: self.statusBar().showMessage(text, ms))
        self.setWindowTitle("Sample — GrammarLens")
        self.resize(1200, 800)
        self._build()

    def _build(self) -> None:
        self.heatmap, self.map, self.plot = HeatmapWidget(), MapWidget(), AgreementPlot()
        self.tabs = QTabWidget()
        for widget, title in ((self.heatmap, "Heatmap"), (self.map, "Map"), (self.plot, "Agreement")):
            if widget is self.map:
                self.tabs.addTab(widget, title)
                continue
            scroll = QScrollArea()
            scroll.setWidget(widget)
            scroll.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            scroll.setStyleSheet("QScrollArea { background: white; }")
            self.tabs.addTab(scroll, title)
        self.setCentralWidget(self.tabs)
        bar = QToolBar("Sample", movable=False)
        bar.setObjectName("sampleToolbar")
        self.sort_box = QComboBox()
        self.sort_box.setAccessibleName("Sort languages by")
        self.sort_box.addItems(["Sort by name", "Sort by macroarea", "Sort by coverage", "Sort by family"])
        self.sort_box.currentIndexChanged.connect(lambda i: self.heatmap.set_sort(view_data.SORT_KEYS[i]))
        self.group_box = QComboBox()
        self.group_box.setAccessibleName("Feature group")
        self.group_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.group_box.currentTextChanged.connect(
            lambda text: self.heatmap.set_group(None if text in (ALL_GROUPS, "") else text))
        self.feature_box = QComboBox()
        self.feature_box.setAccessibleName("Feature on the map")
        self.feature_box.setMinimumContentsLength(24)
        self.feature_box.currentIndexChanged.connect(lambda _i: self.map.set_feature(self.feature_box.currentData()))
        self.colour_box = QComboBox()
        self.colour_box.setAccessibleName("Colour the map by")
        self.colour_box.addItems(["by value", "by family", "by macroarea"])
        self.colour_box.currentIndexChanged.connect(lambda i: self.map.set_colour_by(COLOUR_MODES[i]))
        self.pacific = QCheckBox("Whole world, Pacific-centred")
        self.pacific.setToolTip("Off: the sample's own extent (double-click the map to come back to it)")
        self.pacific.toggled.connect(lambda on: self.map.set_pacific_centred(True) if on else self.map.fit_sample())
        self.reviewed_only = QCheckBox("Coders' decisions only")
        self.reviewed_only.setToolTip("Score against the reference only the values a coder decided (the model's "
                                      "unreviewed predictions left out and counted)")
        self.reviewed_only.toggled.connect(lambda _on: self._rescore())
        for widget in (self.sort_box, self.group_box, QLabel(" Map: "), self.feature_box, self.colour_box,
                       self.pacific, self.reviewed_only):
            bar.addWidget(widget)
        bar.addSeparator()
        self.act_reference = bar.addAction("Reference folder…", self.choose_reference)
        self.act_reference.setToolTip("A WALS or Grambank CLDF folder: its values flag disagreements and give the "
                                      "agreement plot")
        self.act_second = bar.addAction("Second coder's folder…", self.choose_second_coder)
        bar.addSeparator()
        self.act_png = bar.addAction("Export PNG…", lambda: self.export("png"))
        self.act_svg = bar.addAction("Export SVG…", lambda: self.export("svg"))
        self.addToolBar(bar)
        self.task_bar = TaskBar(self.runner)
        self.statusBar().addPermanentWidget(self.task_bar)
        self.heatmap.cellActivated.connect(self.cellActivated)
        self.map.languageActivated.connect(self.cellActivated)

    # ------------------------------------------------------------------ reading
    def load(self, folder: str | Path, reference: str | Path | None = None) -> Operation:
        """Read the sample in the background; the figures fill once it is read (``loaded``)."""
        self.folder = Path(folder)
        self.reference = Path(reference) if reference else self.reference
        self.setWindowTitle(f"Sample {self.folder.name} — GrammarLens")
        self.opened_at, self.open_seconds = time.perf_counter(), None
        if self.operation is not None and self.operation.running:
            self.operation.cancel()
        folder_, reference_ = self.folder, self.reference
        self.operation = (Operation(self.runner, lambda progress: read_sample_view(folder_, reference_, progress))
                          .success(self._show).failure(lambda exc: self.errors.report("Cannot read the sample", exc))
                          .cancelled(lambda: self.statusBar().showMessage("Reading the sample was cancelled.", 8000))
                          .with_progress(f"Reading the sample {self.folder.name}").run_in_background())
        return self.operation

    def _show(self, load: SampleLoad) -> None:
        self.view = load.view
        self.palette_ = ValuePalette(load.icons)
        self.reference_series = []
        self.heatmap.set_view(load.view, self.palette_)
        self._fill_boxes(load.view)
        self.fit_heatmap()
        self.map.set_view(load.view, self.palette_)
        self.feature_box.setCurrentIndex(max(0, self.feature_box.findData(self.map.feature_id)))
        self._show_plot()
        self.heatmap.repaint()  # drawn now, so the open time includes the first paint
        self.open_seconds = time.perf_counter() - self.opened_at
        problems = f"; {len(load.problems)} project(s) could not be read" if load.problems else ""
        problems += f"; reference not used: {load.reference_problem}" if load.reference_problem else ""
        self.statusBar().showMessage(f"{len(load.view.languages)} languages, {len(load.view.feature_ids)} features"
                                     f"{problems}.", 15000)
        if load.problems:
            self.heatmap.setToolTip("\n".join(f"{p.path.name}: {p.message}" for p in load.problems[:20]))
        self.loaded.emit()
        self._load = load
        if self.reference is not None and not load.reference_problem:
            self._compare_with_reference(load, self.reference)

    def _rescore(self) -> None:
        load = getattr(self, "_load", None)
        if load is not None and self.reference is not None and not load.reference_problem:
            self._compare_with_reference(load, self.reference)

    def _compare_with_reference(self, load: SampleLoad, reference: Path) -> Operation:
        """The agreement plot against the reference, by core's scorer (after the heatmap: it reads more)."""
        from core.sample.reference import compare_with_reference

        name, reviewed = load.view.reference_name, self.reviewed_only.isChecked()

        def job(progress: Progress) -> list:
            progress.step(0, 1, "scoring")
            result = compare_with_reference(load.read, reference, groups=load.groups, reviewed_only=reviewed)
            return view_data.reference_series(result, name + (" (coders' decisions only)" if reviewed else ""))

        def done(series: list) -> None:
            self.reference_series = series
            self._show_plot()
            self.compared.emit()

        return (Operation(self.runner, job).success(done)
                .failure(lambda exc: self.errors.report("Cannot compare the sample with the reference", exc))
                .with_progress(f"Scoring the sample against {name or 'the reference'}").run_in_background())

    def fit_heatmap(self) -> None:
        """Cells as large as the heatmap's tab allows (14..36 px); Ctrl+wheel zooms from there."""
        scroll = self.tabs.widget(0)
        if isinstance(scroll, QScrollArea) and self.view is not None:
            self.heatmap.fit_to(scroll.viewport().size())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_heatmap()

    def _fill_boxes(self, view: view_data.SampleView) -> None:
        self.group_box.blockSignals(True)
        self.group_box.clear()
        self.group_box.addItems([ALL_GROUPS, *view.group_names()])
        self.group_box.blockSignals(False)
        self.heatmap.set_group(None)
        self.feature_box.blockSignals(True)
        self.feature_box.clear()
        for fid in view.feature_ids:
            self.feature_box.addItem(f"{fid} {view.feature_names.get(fid, '')}"[:70], fid)
        self.feature_box.blockSignals(False)
        if MAP_DEFAULT in view.feature_ids:
            self.map.set_feature(MAP_DEFAULT)

    def _show_plot(self) -> None:
        series = [*self.reference_series, *([self.coder_series] if self.coder_series else [])]
        self.plot.set_series(series)

    # ------------------------------------------------------------------ choices
    def choose_reference(self) -> None:
        folder = file_dialogs.choose_folder(self, "CLDF folder of WALS or Grambank (or the folder holding both)",
                                            self.reference)
        if folder is not None and self.folder is not None:
            self.load(self.folder, folder)

    def choose_second_coder(self) -> None:
        folder = file_dialogs.choose_folder(self, "The second coder's sample folder", self.folder)
        if folder is not None:
            self.compare_with(folder)

    def compare_with(self, second: str | Path) -> Operation | None:
        """Agreement between this sample's coder(s) and a second coder's folder (projects paired by Glottocode)."""
        if self.folder is None:
            return None
        from core.sample.coders import compare_folders
        from core.sample.groups import find_grouping, load_groups

        first, other, reference = self.folder, Path(second), self.reference

        def job(progress: Progress):
            progress.step(0, 1, "comparing")
            result = compare_folders(first, other, groups=load_groups(find_grouping(reference)) if reference else None)
            return view_data.coder_agreement(result.by_feature, f"{first.name} vs {other.name} (two coders, blind)")

        def done(series: view_data.AgreementSeries) -> None:
            self.coder_series = series
            self._show_plot()
            self.tabs.setCurrentWidget(self.tabs.widget(2))
            self.compared.emit()

        return (Operation(self.runner, job).success(done)
                .failure(lambda exc: self.errors.report("Cannot compare the two coders", exc))
                .with_progress(f"Comparing with {other.name}").run_in_background())

    def current_figure(self):
        return (self.heatmap, self.map, self.plot)[self.tabs.currentIndex()]

    def export(self, kind: str) -> Path | None:
        """Export PNG… / Export SVG…: the figure of the current tab, through the app's file chooser."""
        figure = self.current_figure()
        name = ("heatmap", "map", "agreement")[self.tabs.currentIndex()]
        start = (self.folder or Path.home()) / f"sample-{name}.{kind}"
        path = file_dialogs.choose_figure_out(self, start, kind)
        if path is None:
            return None
        try:
            written = export_figure(figure, path)
        except (GrammarLensError, OSError) as exc:  # anything else is a bug: the app's error reporter shows it
            self.errors.report("The figure was not exported", exc)
            return None
        self.statusBar().showMessage(f"Saved {written}.", 8000)
        return written

    def closeEvent(self, event) -> None:
        if self.operation is not None and self.operation.running:
            self.operation.cancel()
        super().closeEvent(event)


_OPEN: list[SampleWindow] = []  # windows opened without a parent stay alive until closed


def show_sample_window(folder: str | Path, *, reference: str | Path | None = None,
                       runner: OperationRunner | None = None, parent: QWidget | None = None) -> SampleWindow:
    """Open a Sample window on ``folder`` (reading starts at once, in the background)."""
    window = SampleWindow(runner, parent=parent)
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, parent is None)
    if parent is None:
        _OPEN.append(window)
        window.destroyed.connect(lambda *_: _OPEN.remove(window) if window in _OPEN else None)
    window.show()
    window.load(folder, reference)
    return window
