"""The About box: what GrammarLens is and whose data it carries (WALS and Grambank, CC-BY 4.0).

The credit text is built without Qt (``about_text``) so a test can check it; Qt is imported only
to show the box.
"""

from __future__ import annotations

from core import __version__

CREDITS = (
    "Feature catalog: WALS Online (Dryer, Matthew S. & Haspelmath, Martin (eds.) 2013, CC-BY 4.0) and "
    "Grambank v1.0 (Skirgård, Hedvig et al. 2023, \u201cGrambank reveals the importance of genealogical "
    "constraints on linguistic diversity and highlights the impact of language loss\u201d, Science Advances 9; "
    "CC-BY 4.0). The summaries, coding procedures and examples shown for Grambank features and sent to "
    "the language model are Grambank's own text, used under CC-BY 4.0."
)
METHOD = ("Method after Kornilov & Shavrina, \u201cFrom MTEB to MTOB: Retrieval-Augmented Classification for "
          "Descriptive Grammars\u201d.")


def about_text() -> str:
    """Plain text of the About box (also what a test reads)."""
    return (f"GrammarLens {__version__}\n\nFind what a descriptive grammar says about a typological feature, "
            f"and code it.\n\n{METHOD}\n\n{CREDITS}")


def show_about(parent) -> None:
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.about(parent, "About GrammarLens", about_text().replace("\n", "<br>"))
