"""The project file: one SQLite database per project (see :mod:`core.store.database`)."""

from core.store.database import PROJECT_SUFFIX, ProjectDatabase, create_project, open_project

__all__ = ["PROJECT_SUFFIX", "ProjectDatabase", "create_project", "open_project"]
