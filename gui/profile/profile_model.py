"""Table model of the profile view: a thin adapter over core ProfileEntry rows and their agreement."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor

from core.profile import entries as profile_entries
from gui.profile.profile_summary import LABELS, NOT_CODED, statuses_of

COLUMNS = ("Feature", "Name", "Value", "Status", "Pages", "Database", "Agreement")
FEATURE, NAME, VALUE, STATUS, PAGES, DATABASE, AGREEMENT = range(len(COLUMNS))
_AGREEMENT_COLOURS = {"agree": QColor("#d8efd8"), "disagree": QColor("#f6d5d5")}
# the statuses are core's (core.profile.entries); those without a colour are drawn in the table's own
_STATUS_COLOURS = {profile_entries.CODED: QColor("#1f4f8a"), profile_entries.ACCEPTED: QColor("#1f6f2a"),
                   profile_entries.OVERRIDDEN: QColor("#8a4b00"), profile_entries.UNKNOWN: QColor("#6a3d8a"),
                   profile_entries.NOT_ENOUGH: QColor("#666666"), profile_entries.NO_VALUE: QColor("#a01010")}

_NOT_CODED_COLOUR = QColor("#7a7a7a")  # a whole row in grey: a feature of the set nobody coded yet


class ProfileTableModel(QAbstractTableModel):
    """One row per feature value; ``SortRole`` gives numeric feature order and numeric pages."""

    SortRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.entries: list[Any] = []
        self.agreement: Any | None = None

    def set_profile(self, entries: list[Any], agreement: Any | None) -> None:
        self.beginResetModel()
        self.entries, self.agreement = list(entries), agreement
        self.endResetModel()

    def entry(self, row: int) -> Any:
        return self.entries[row]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        is_label = orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole
        if is_label and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def _reference(self, e: Any) -> tuple[str, str]:
        if self.agreement is None:
            return "", ""
        ref = self.agreement.reference(e.feature_id)
        verdict = self.agreement.verdict(e.feature_id)
        if ref is None:
            return "", "" if verdict == "no reference" else verdict
        return f"{ref.dataset}: {ref.label}", verdict

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self.entries):
            return None
        e, col = self.entries[index.row()], index.column()
        database, verdict = self._reference(e)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, self.SortRole):
            if col == FEATURE:
                if role == self.SortRole:
                    from core.profile.entries import sort_key

                    group, number, rest = sort_key(e.feature_id)
                    return f"{group}{number:06d}{rest}"
                return e.feature_id
            if col == NAME:
                return e.name
            if col == VALUE:
                text = e.label or "—"
                if role == Qt.ItemDataRole.ToolTipRole and e.reasoning:
                    return f"{text}\n\n{e.reasoning}"
                return text
            if col == STATUS:
                return LABELS[NOT_CODED] if e.status == NOT_CODED else e.status
            if col == PAGES:
                if role == self.SortRole:
                    return int(e.pages[0]) if e.pages and e.pages[0].isdigit() else 10**6
                from core.export.cldf import page_ranges

                return page_ranges(e.pages)
            if col == DATABASE:
                return database
            if col == AGREEMENT:
                return verdict
        if role == Qt.ItemDataRole.BackgroundRole and col == AGREEMENT:
            return _AGREEMENT_COLOURS.get(verdict)
        if role == Qt.ItemDataRole.ForegroundRole and e.status == NOT_CODED:
            return _NOT_CODED_COLOUR  # listed among the coded ones, plainly: nothing decided yet
        if role == Qt.ItemDataRole.ForegroundRole and col == STATUS:
            return _STATUS_COLOURS.get(e.status)
        return None


class ProfileFilterModel(QSortFilterProxyModel):
    """Filters by free text (feature id, name, value) and by a status filter key; sorts by the SortRole.

    A key is a status of core's or a group of them (:func:`gui.profile.profile_summary.statuses_of`:
    "uncoded" is every status the coder has not decided).  The rows of the set's untouched features
    (:data:`gui.profile.profile_summary.NOT_CODED`) show under every status ("All features") and "uncoded".
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.text = ""
        self.status = ""
        self.statuses: frozenset[str] = frozenset()
        self.setSortRole(ProfileTableModel.SortRole)

    def _changed(self, apply) -> None:
        """Apply a filter change; Qt 6.9 replaced invalidateFilter() with begin/endFilterChange()."""
        if hasattr(self, "beginFilterChange"):
            self.beginFilterChange()
            apply()
            self.endFilterChange()
        else:
            apply()
            self.invalidateFilter()

    def set_text(self, text: str) -> None:
        self._changed(lambda: setattr(self, "text", text.strip().casefold()))

    def set_status(self, status: str) -> None:
        def apply() -> None:
            self.status, self.statuses = status or "", statuses_of(status or "")

        self._changed(apply)

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:
        model = self.sourceModel()
        e = model.entry(row)
        if self.statuses and e.status not in self.statuses:
            return False
        if self.text:
            hay = " ".join((e.feature_id, e.name, e.label or "", e.status)).casefold()
            return all(word in hay for word in self.text.split())
        return True
