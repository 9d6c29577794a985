"""The GrammarLens desktop app (PySide6): a thin layer over ``core``.

Only this package imports Qt.  Start it with ``python main.py`` (see :mod:`gui.app`).
"""

