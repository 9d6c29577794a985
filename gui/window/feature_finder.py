"""Which feature the window shows when a feature is asked for by id: now, or once it can be.

Why an object of its own: a feature can be asked for before the window can show it, by a sample's
heatmap cell or the two-coder queue opening another project, or by the project's own memory while the
catalog still loads.  The id waits here until both the catalog and a project are there, then is
chosen once.  The window keeps no such field of its own; it hands the finder the catalog when it
arrives and asks it to find ids.
"""

from __future__ import annotations

from collections.abc import Callable

from core.catalog.model import Catalog, Feature
from core.errors import GrammarLensError


class FeatureFinder:
    """Turns feature ids into the catalog's features for ``choose``; an id asked for too early waits."""

    def __init__(self, choose: Callable[[Feature], None], say: Callable[[str], None],
                 project_open: Callable[[], bool]) -> None:
        self.choose, self.say, self.project_open = choose, say, project_open
        self.catalog: Catalog | None = None
        self.wanted: str | None = None  # asked for before the catalog (or a project) was there

    def want(self, feature_id: str | None) -> None:
        """Show ``feature_id`` once the next project is open (None keeps what was wanted)."""
        self.wanted = feature_id or self.wanted

    def catalog_loaded(self, catalog: Catalog) -> None:
        self.catalog = catalog
        wanted = self.wanted
        if wanted and self.project_open():
            self.wanted = None
            self.find(wanted)

    def project_opened(self, remembered: str) -> None:
        """A project is open: show what was asked for, or else the feature it showed when last closed."""
        wanted = self._take() or remembered
        if wanted:
            self.find(wanted)

    def find(self, feature: Feature | str) -> None:
        """Choose a feature (object or id); an id waits for the catalog, an unknown one is said and dropped."""
        if isinstance(feature, str):
            if self.catalog is None:
                self.wanted = feature
                return
            try:
                feature = self.catalog.get(feature)
            except GrammarLensError:
                self.say(f"No feature {feature} in the catalog.")
                return
        self.choose(feature)

    def _take(self) -> str | None:
        wanted, self.wanted = self.wanted, None
        return wanted
