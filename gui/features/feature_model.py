"""The feature search results as a Qt list: a thin adapter over catalog ``Feature`` objects.

Features the linguist has coded carry a mark before their id (✔ a value, ? not enough information),
so a coding pass shows its progress in the list too.
"""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

_Index = QModelIndex | QPersistentModelIndex


class FeatureListModel(QAbstractListModel):
    """Shows ``ID  name`` per feature, with the dataset and definition as tooltip."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.features: list[Any] = []
        self.coded: dict[str, str] = {}  # feature id -> mark of its current decision

    def set_features(self, features: Sequence[Any]) -> None:
        self.beginResetModel()
        self.features = list(features)
        self.endResetModel()

    def set_coded(self, marks: dict[str, str]) -> None:
        """Marks of the coded features (feature id -> "✔" or "?"); the others show none."""
        self.coded = dict(marks)
        if self.features:
            self.dataChanged.emit(self.index(0), self.index(len(self.features) - 1))

    def feature(self, row: int) -> Any:
        return self.features[row]

    def row_of(self, feature_id: str) -> int:
        return next((i for i, f in enumerate(self.features) if f.id == feature_id), -1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.features)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.features):
            return None
        feature = self.features[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            mark = self.coded.get(feature.id)
            return f"{mark} {feature.id}  {feature.name}" if mark else f"{feature.id}  {feature.name}"
        if role == Qt.ItemDataRole.ToolTipRole:
            definition = " ".join(feature.definition.split())
            if len(definition) > 600:
                definition = definition[:599] + "…"
            dataset = feature.dataset
            return f"{feature.id} ({dataset})\n{feature.name}\n\n{definition}".strip()
        if role == Qt.ItemDataRole.UserRole:
            return feature.id
        return None
