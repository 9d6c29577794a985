"""The features panel: find a feature by id, name or words of its definition, and pick it.

Only presents the catalog and reports the choice (``featureChosen``); what a choice does
(evidence, value) is the feature controller's business.

Two promises the person relies on: a click never moves the list (the item stays under the
pointer, so the next click lands where they aim), and Enter in the search opens the first match
of what was typed, even when Enter comes before the typing delay has filtered the list.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QAbstractItemView, QLabel, QLineEdit, QListView, QVBoxLayout, QWidget

from core.catalog.model import Catalog, Feature
from core.errors import error_text
from gui.features.feature_model import FeatureListModel

FILTER_DELAY_MS = 120  # typing "word order" filters once, not at every letter


class FeatureListView(QListView):
    """A list that a mouse click never scrolls.

    Qt scrolls the current item into view whenever it changes; for a click on a half-hidden item
    at the edge (and for the window showing the feature the click chose) that moved the list
    under the pointer.  While a mouse button is pressed no scrolling is done; the keyboard still
    scrolls the current item into view.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.clicking = False

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.clicking = True
        try:
            super().mousePressEvent(event)
        finally:
            self.clicking = False

    def scrollTo(self, index: QModelIndex | QPersistentModelIndex,
                 hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible) -> None:
        if not self.clicking:
            super().scrollTo(index, hint)

    def shows_whole(self, index: QModelIndex) -> bool:
        """True when the item at ``index`` is visible from top to bottom (long names are elided, so only the
        height counts)."""
        rect, view = self.visualRect(index), self.viewport().rect()
        return rect.isValid() and rect.top() >= view.top() and rect.bottom() <= view.bottom()


class FeaturesPanel(QWidget):
    """A search field over the feature list; the chosen feature stays selected while the list is filtered."""

    featureChosen = Signal(object)  # the Feature the person picked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog: Catalog | None = None
        self._current_id: str | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        layout.addWidget(QLabel("<b>Features</b>"))
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Find a feature: 81A, GB107, 'word order'…")
        self.search_edit.setAccessibleName("Find a feature by id, name or definition")
        self.search_edit.setClearButtonEnabled(True)
        layout.addWidget(self.search_edit)
        self.model = FeatureListModel(self)
        self.list_view = FeatureListView()
        self.list_view.setModel(self.model)
        self.list_view.setAccessibleName("Features")
        self.list_view.setUniformItemSizes(True)
        self.list_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_view.setTextElideMode(Qt.TextElideMode.ElideRight)
        layout.addWidget(self.list_view, 1)
        self.status_label = QLabel("Loading the feature catalog…")
        self.status_label.setWordWrap(True)
        self.status_label.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.status_label)
        self.setMinimumWidth(180)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FILTER_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self.search_edit.textChanged.connect(lambda _text: self._timer.start())
        self.search_edit.returnPressed.connect(self.pick_first)
        self.list_view.selectionModel().currentChanged.connect(self._chosen)
        self.list_view.activated.connect(self._chosen)

    # ------------------------------------------------------------------ what the window tells it
    def set_catalog(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.status_label.setText("")
        self.refresh()

    def set_failed(self, exc: BaseException) -> None:
        self.status_label.setText(f"The feature catalog could not be loaded: {error_text(exc)}")

    def show_feature(self, feature: Feature | None) -> None:
        """Select ``feature`` in the list without reporting it as a new choice.

        The list scrolls only to bring a feature chosen elsewhere (the pass, the profile) into view;
        a feature already in view, such as the one just clicked, leaves the list where it is.
        """
        self._current_id = feature.id if feature else None
        row = self.model.row_of(feature.id) if feature else -1
        if row < 0:
            return
        index = self.model.index(row)
        if self.list_view.currentIndex().row() != row:
            self.list_view.selectionModel().blockSignals(True)
            self.list_view.setCurrentIndex(index)
            self.list_view.selectionModel().blockSignals(False)
        if not self.list_view.clicking and not self.list_view.shows_whole(index):
            self.list_view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    def focus_search(self) -> None:
        self.search_edit.setFocus()
        self.search_edit.selectAll()

    # ------------------------------------------------------------------ filtering and choosing
    def refresh(self) -> None:
        """Filter the list by the search text (every feature when it is empty)."""
        if self.catalog is None:
            return
        text = self.search_edit.text().strip()
        features = self.catalog.search(text) if text else list(self.catalog)
        self.model.set_features(features)
        self.status_label.setText(f"{len(features)} features" if text else "")
        if self._current_id is not None:
            row = self.model.row_of(self._current_id)
            if row >= 0:
                self.list_view.selectionModel().blockSignals(True)
                self.list_view.setCurrentIndex(self.model.index(row))
                self.list_view.selectionModel().blockSignals(False)

    def pick_first(self) -> None:
        """Enter in the search: open the first match of the text typed so far (and only it).

        The list is filtered now if the typing delay has not done it yet; otherwise Enter right
        after "GB035" chose the first row of the unfiltered list (1A).
        """
        if self._timer.isActive():
            self._timer.stop()
            self.refresh()
        if not self.model.rowCount():
            return
        first = self.model.index(0)
        if self.list_view.currentIndex().row() != 0:
            self.list_view.setCurrentIndex(first)  # reports it through currentChanged
        else:
            self._chosen(first)  # already selected (kept by the filter): opened unless it is the shown one
        self.list_view.scrollTo(first)
        self.list_view.setFocus()

    def _chosen(self, index: QModelIndex) -> None:
        if index.isValid():
            feature = self.model.feature(index.row())
            if feature.id != self._current_id:
                self._current_id = feature.id
                self.featureChosen.emit(feature)
