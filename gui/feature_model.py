"""The feature search results as a Qt list: a thin adapter over catalog ``Feature`` objects."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

_Index = QModelIndex | QPersistentModelIndex


class FeatureListModel(QAbstractListModel):
    """Shows ``ID  name`` per feature, with the dataset and definition as tooltip."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.features: list[Any] = []

    def set_features(self, features: Sequence[Any]) -> None:
        self.beginResetModel()
        self.features = list(features)
        self.endResetModel()

    def feature(self, row: int) -> Any:
        return self.features[row]

    def row_of(self, feature_id: str) -> int:
        return next((i for i, f in enumerate(self.features) if f.id == feature_id), -1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 - Qt naming
        return 0 if parent.isValid() else len(self.features)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.features):
            return None
        feature = self.features[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{feature.id}  {feature.name}"
        if role == Qt.ItemDataRole.ToolTipRole:
            definition = " ".join(feature.definition.split())
            if len(definition) > 600:
                definition = definition[:599] + "…"
            dataset = feature.dataset
            return f"{feature.id} ({dataset})\n{feature.name}\n\n{definition}".strip()
        if role == Qt.ItemDataRole.UserRole:
            return feature.id
        return None
