"""GrammarLens core: ingestion, storage, retrieval and classification, free of Qt.

Nothing in this package may import PySide6 (``tests/core/test_architecture.py`` enforces it), so
everything here runs headless: from the CLI, from tests and from GUI worker threads.
"""

__version__ = "0.1.0"
