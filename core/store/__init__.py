"""The project file: one SQLite database per project (see :mod:`core.store.database` and :mod:`core.store.opening`).

All SQL of GrammarLens lives in this package: :mod:`~core.store.repository` (documents, pages,
paragraphs, language) and one module per further group of tables turn rows into dataclasses, and
each of their write functions is one transaction.
"""

from core.store.database import PROJECT_SUFFIX, ProjectDatabase
from core.store.opening import create_project, open_project

__all__ = ["PROJECT_SUFFIX", "ProjectDatabase", "create_project", "open_project"]
