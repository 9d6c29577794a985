"""Garbage is collected on the GUI thread only (a Qt object freed in a worker can deadlock the window)."""

from __future__ import annotations

import gc
import threading

from core.collector import collector_paused
from gui.app import make_application
from gui.common.gui_collector import GuiThreadCollector, install


class _Cycle:
    """An object in a reference cycle that says which thread freed it."""

    freed_in: list[str] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.freed_in.append(threading.current_thread().name)


def test_the_app_hands_collection_to_one_collector_on_the_gui_thread(qtbot) -> None:
    app = make_application()
    assert install(app) is app.findChild(GuiThreadCollector)  # one per application
    assert not gc.isenabled()


def test_a_worker_pausing_the_collector_never_switches_it_back_on_and_its_garbage_goes_here(qtbot) -> None:
    collector = install(make_application())
    _Cycle.freed_in.clear()

    def work() -> None:
        with collector_paused():  # what an index build does in a worker
            for _ in range(200):
                _Cycle()
        for _ in range(5000):  # enough allocations to set off automatic collections, were they on
            _Cycle()

    worker = threading.Thread(target=work, name="worker")
    worker.start()
    worker.join()
    assert not gc.isenabled() and _Cycle.freed_in == []  # nothing was collected in the worker
    before = sum(collector.collections)
    qtbot.waitUntil(lambda: len(_Cycle.freed_in) == 5200, timeout=5000)
    assert set(_Cycle.freed_in) == {threading.current_thread().name}
    assert sum(collector.collections) > before


def test_the_gui_collector_waits_while_a_build_has_the_collector_paused(qtbot) -> None:
    collector = install(make_application())
    _Cycle.freed_in.clear()
    inside = threading.Event()
    release = threading.Event()

    def build() -> None:
        with collector_paused():
            for _ in range(3000):
                _Cycle()
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=build)
    worker.start()
    inside.wait(10)
    qtbot.wait(400)  # several of the collector's looks
    assert _Cycle.freed_in == [] and collector.collect_due() is None
    release.set()
    worker.join()
    qtbot.waitUntil(lambda: len(_Cycle.freed_in) == 3000, timeout=5000)
