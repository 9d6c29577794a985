"""The settings dialog: which model to ask, how to retrieve, and who reviews.

"Test connection" runs in the worker pool (a slow server must not freeze the dialog) and
reports the server's answer or a message saying what to fix.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.errors import error_hint, error_text
from core.llm.settings import LlmSettings
from core.retrieval.dense import reranker_installed, reranker_missing_hint
from gui.common import backend
from gui.common.operations import Operation, OperationRunner
from gui.common.settings import (
    PROVIDER_COMPATIBLE,
    PROVIDER_OPENAI,
    AppSettings,
    get_api_key,
    keyring_available,
    set_api_key,
)


class SettingsDialog(QDialog):
    """Edits an :class:`AppSettings`; :meth:`result_settings` returns the edited copy."""

    def __init__(self, settings: AppSettings, runner: OperationRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("GrammarLens settings")
        self.setAccessibleName("Settings")
        self.setMinimumWidth(560)
        self.runner = runner
        self._original = settings
        self._test: Operation[str] | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self._llm_group(settings))
        layout.addWidget(self._retrieval_group(settings))
        layout.addWidget(self._review_group(settings))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        self.provider.setCurrentIndex(max(0, self.provider.findData(settings.provider)))
        self._provider_changed()

    # ------------------------------------------------------------------ building (in tab order)
    def _llm_group(self, settings: AppSettings) -> QGroupBox:
        """Which model to ask: provider, server, model, temperature, the key and a test of the connection."""
        llm = QGroupBox("Language model")
        form = QFormLayout(llm)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.provider = QComboBox()
        self.provider.addItem("OpenAI", PROVIDER_OPENAI)
        self.provider.addItem("OpenAI-compatible server (local or hosted)", PROVIDER_COMPATIBLE)
        self.provider.setAccessibleName("Provider")
        form.addRow("&Provider:", self.provider)
        self.base_url = QLineEdit(settings.llm.base_url or "")
        self.base_url.setPlaceholderText("http://127.0.0.1:8080/v1  (llama.cpp, Ollama, LM Studio, vLLM…)")
        self.base_url.setAccessibleName("Server URL")
        form.addRow("Server &URL:", self.base_url)
        self.model = QLineEdit(settings.llm.model)
        self.model.setAccessibleName("Model")
        form.addRow("&Model:", self.model)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setValue(settings.llm.temperature)
        self.temperature.setAccessibleName("Temperature")
        form.addRow("&Temperature:", self.temperature)
        self._add_key_rows(form, settings)
        form.addRow("", self._test_row())
        return llm

    def _add_key_rows(self, form: QFormLayout, settings: AppSettings) -> None:
        """The API key (hidden unless Show is pressed) and where it is kept: never in the project file."""
        key_row = QHBoxLayout()
        self.api_key = QLineEdit(get_api_key(settings))
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("sk-…  (not needed for a local server)")
        self.api_key.setAccessibleName("API key")
        key_row.addWidget(self.api_key, 1)
        self.show_key = QPushButton("Show")
        self.show_key.setCheckable(True)
        self.show_key.setAccessibleName("Show the API key")
        self.show_key.toggled.connect(
            lambda on: self.api_key.setEchoMode(QLineEdit.EchoMode.Normal if on else QLineEdit.EchoMode.Password)
        )
        key_row.addWidget(self.show_key)
        key_label = QLabel("API &key:")
        key_label.setBuddy(self.api_key)
        form.addRow(key_label, key_row)
        self.key_note = QLabel(
            "Kept in the system keyring, never in the project file."
            if keyring_available()
            else "No system keyring found: the key is kept for this session only (or set OPENAI_API_KEY)."
        )
        self.key_note.setWordWrap(True)
        self.key_note.setMinimumHeight(self.key_note.sizeHint().height())
        self.key_note.setStyleSheet("color: palette(mid);")
        form.addRow("", self.key_note)

    def _test_row(self) -> QHBoxLayout:
        """Test connection and its answer (the server's words, or what to fix), selectable for a bug report."""
        test_row = QHBoxLayout()
        self.test_button = QPushButton("Test &connection")
        self.test_button.setAccessibleName("Test connection")
        self.test_button.clicked.connect(self.test_connection)
        test_row.addWidget(self.test_button)
        self.test_result = QLabel("")
        self.test_result.setWordWrap(True)
        self.test_result.setAccessibleName("Connection test result")
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row.addWidget(self.test_result, 1)
        return test_row

    def _retrieval_group(self, settings: AppSettings) -> QGroupBox:
        """How evidence is found: the reranker (and whether this build has one), how much is kept and sent."""
        retrieval = QGroupBox("Retrieval")
        rform = QFormLayout(retrieval)
        self.reranker_model = QComboBox()
        self.reranker_model.setEditable(True)
        self.reranker_model.addItem("", "")
        self.reranker_model.addItem("all-MiniLM-L6-v2")
        self.reranker_model.setCurrentText(settings.retrieval.reranker or "")
        if (reranker_edit := self.reranker_model.lineEdit()) is not None:  # editable, so it has one
            reranker_edit.setPlaceholderText("empty: BM25 only; or a model name or local folder")
        self.reranker_model.setAccessibleName("Reranker model")
        rform.addRow("&Reranker model:", self.reranker_model)
        if not reranker_installed():  # the lite desktop build (packaging/) ships no torch
            self.reranker_note = QLabel(reranker_missing_hint())
            self.reranker_note.setWordWrap(True)
            self.reranker_note.setAccessibleName("Reranker availability")
            rform.addRow("", self.reranker_note)
        self.reranker_device = QComboBox()
        self.reranker_device.addItems(["auto", "cpu", "cuda", "mps"])
        self.reranker_device.setCurrentText(settings.retrieval.device)
        self.reranker_device.setAccessibleName("Reranker device")
        rform.addRow("Reranker &device:", self.reranker_device)
        self.bm25_top_k = self._spin(settings.retrieval.bm25_top, 1, 500, "Paragraphs kept after BM25")
        rform.addRow("Keep after &BM25:", self.bm25_top_k)
        self.rerank_top_k = self._spin(settings.retrieval.final_top, 1, 200, "Paragraphs kept after reranking")
        rform.addRow("Keep after re&ranking:", self.rerank_top_k)
        self.token_budget = self._spin(settings.retrieval.budget_tokens, 500, 200_000, "Evidence token budget")
        self.token_budget.setSingleStep(500)
        self.token_budget.setSuffix(" tokens")
        rform.addRow("&Evidence budget:", self.token_budget)
        return retrieval

    def _review_group(self, settings: AppSettings) -> QGroupBox:
        """Who reviews: the name every act is recorded under (its placeholder: the name used when it is empty)."""
        review = QGroupBox("Review")
        vform = QFormLayout(review)
        self.reviewer = QLineEdit(settings.reviewer)
        self.reviewer.setPlaceholderText(settings.reviewer_name)
        self.reviewer.setAccessibleName("Reviewer name")
        vform.addRow("Reviewer &name:", self.reviewer)
        return review

    @staticmethod
    def _spin(value: int, low: int, high: int, name: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(low, high)
        spin.setValue(value)
        spin.setAccessibleName(name)
        return spin

    def _provider_changed(self) -> None:
        compatible = self.provider.currentData() == PROVIDER_COMPATIBLE
        self.base_url.setEnabled(compatible)

    def result_settings(self) -> AppSettings:
        """The edited copy: the core's settings objects with the dialog's values, every other knob kept."""
        compatible = self.provider.currentData() == PROVIDER_COMPATIBLE
        llm = replace(self._original.llm, base_url=(self.base_url.text().strip() or None) if compatible else None,
                      model=self.model.text().strip() or LlmSettings().model,
                      temperature=round(self.temperature.value(), 2))
        retrieval = replace(self._original.retrieval, reranker=self.reranker_model.currentText().strip() or None,
                            device=self.reranker_device.currentText(), bm25_top=self.bm25_top_k.value(),
                            final_top=self.rerank_top_k.value(), budget_tokens=self.token_budget.value())
        return AppSettings(llm, retrieval, self.reviewer.text().strip())

    def store_key(self) -> bool:
        """Save the typed key for the chosen provider; false when only kept for this session."""
        return set_api_key(self.result_settings(), self.api_key.text())

    def accept(self) -> None:
        self.store_key()
        super().accept()

    def test_connection(self) -> None:
        settings = self.result_settings()
        self.store_key()
        self.test_button.setEnabled(False)
        self.test_result.setText("Connecting…")
        self._test = (Operation(self.runner, lambda progress: backend.test_connection(settings))
                      .success(self._tested).failure(self._test_failed).finished(self._test_finished)
                      .run_in_background())

    def _tested(self, message: object) -> None:
        self.test_result.setText(f"✓ {message}")

    def _test_failed(self, exc: BaseException) -> None:
        hint, text = error_hint(exc), error_text(exc)
        self.test_result.setText(f"✗ {text}" + (f"\n{hint}" if hint else ""))

    def _test_finished(self) -> None:
        self.test_button.setEnabled(True)
