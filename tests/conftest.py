"""Test-wide setup: headless Qt, offline models, paths to ../shared, shared fixtures.

Fixture modules are ``tests/fixtures_*.py``; they are loaded as pytest plugins so that each
area (ingestion, LLM server, GUI...) keeps its fixtures in a file of its own.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# A coder's name, so that no window in a test (or a subprocess of one) stops at "Who is coding?" at its first act;
# the tests of that question remove it (tests/gui/test_coder_name.py).
os.environ.setdefault("GRAMMARLENS_REVIEWER", "tester")

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

pytest_plugins = sorted(
    f"tests.{p.stem}" for p in Path(__file__).parent.glob("fixtures_*.py")
)


def pytest_report_header(config) -> str:
    """Name the Qt platform plugins in use, so a CI log shows that the real window (xcb) was tested."""
    import shutil

    xvfb = shutil.which("Xvfb")
    real = f"xcb on Xvfb ({xvfb})" if xvfb else "xcb: Xvfb missing, real-window tests skipped"
    return (f"Qt platform plugins: {os.environ['QT_QPA_PLATFORM']} for the widget tests; {real} for "
            "tests/gui/test_real_window_xcb.py")


@pytest.fixture(autouse=True)
def _model_children_may_start():
    """Each test starts as a fresh app would: an earlier test's window quitting refused new model children."""
    from core.retrieval.model_process import allow_new

    allow_new()
    yield
