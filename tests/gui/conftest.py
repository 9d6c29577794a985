"""GUI tests: offscreen, every unexpected Qt warning fails the test (as in the flat window tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
# The offscreen platform plugin says this whenever a top-level widget (a window, a floating dock) is shown;
# it is about the plugin, not us.
PLUGIN_NOISE = r"This plugin does not support (propagateSizeHints|raise)\(\)"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent == HERE and item.fspath.basename != "test_window_state.py":
            item.add_marker(pytest.mark.gui)
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(PLUGIN_NOISE))
