"""Where each paragraph of the open project lies on its pages, read in the background, for clicks on the page.

Why apart from :class:`gui.coding.coding_controller.CodingController`: reading every paragraph's
rectangles takes a second on a long grammar and runs in a worker with its own connection; the
controller only asks :meth:`PageIndex.at` which paragraph lies under a point, or to be called back
once the rectangles are read (:meth:`PageIndex.read`).
"""

from __future__ import annotations

from collections.abc import Callable

from core.coding.locate import ParagraphLocator
from core.models import Paragraph
from core.store import open_project
from core.store.repository import list_paragraphs
from gui.common.operations import Operation, OperationRunner
from gui.common.window_state import WindowState


class PageIndex:
    """The paragraph rectangles of ``state.project_path`` (None until read; forgotten when the project changes)."""

    def __init__(self, runner: OperationRunner, state: WindowState) -> None:
        self.runner, self.state = runner, state
        self.locator: ParagraphLocator | None = None
        self._locating: Operation | None = None
        self._after_index: list[Callable[[], object]] = []  # what waits for the paragraph rectangles

    def forget(self, *, waiting: bool = False) -> None:
        """Drop the rectangles read (a grammar was added, a project opened); ``waiting``: the callbacks too."""
        self.locator = None
        if waiting:
            self._after_index = []
        if self._locating is not None:
            self._locating.cancel()

    def read(self, then: Callable[[], object] | None = None) -> None:
        """Read every paragraph's rectangles in the background (for clicks on the page), then call ``then``.

        Not done when a project opens: the first retrieval of a session competes for the same CPU,
        and most sessions never pin from the page.  A pass or the first click on a page starts it.
        """
        path = self.state.project_path
        if path is None:
            return
        if self.locator is not None:
            then() if then is not None else None
            return
        if then is not None:
            self._after_index.append(then)
        if self._locating is not None and self._locating.running:
            return

        def read(progress) -> ParagraphLocator:
            with open_project(path) as project:
                return ParagraphLocator(list_paragraphs(project))

        def done(locator: ParagraphLocator) -> None:
            if path == self.state.project_path:
                self.locator = locator
                waiting, self._after_index = self._after_index, []
                for callback in waiting:
                    callback()

        self._locating = (Operation(self.runner, read).success(done).failure(lambda _exc: None)
                          .run_in_background())

    def at(self, pdf_page: int, x: float, y: float) -> Paragraph | None:
        """The paragraph of the grammar on screen under a point of a PDF page (None until the index is read)."""
        document = self.state.document
        if self.locator is None or document is None:
            return None
        return self.locator.at(document.id, pdf_page, x, y)
