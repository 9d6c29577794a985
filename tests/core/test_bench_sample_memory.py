"""`bench sample` reports each command's own peak memory, not the size of the process that started it.

Linux keeps the memory a process had before ``exec`` in its ``ru_maxrss``; a command started straight from
a large process reported that process's size (161 MB for every command of a 100-project sample, whose own
peaks are 92-117 MB).
"""

from __future__ import annotations

import sys

from bench.sample import _timed


def test_a_command_started_from_a_large_process_reports_its_own_peak() -> None:
    ballast = bytearray(400 * 1024 * 1024)  # this process now holds 400 MB more
    ballast[:: 4096] = b"x" * len(ballast[:: 4096])  # touched, so resident
    small = _timed([sys.executable, "-c", "pass"])
    big = _timed([sys.executable, "-c", "b = bytearray(150 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"])
    del ballast
    assert small["exit"] == 0 and big["exit"] == 0
    assert small["peak_mb"] < 60, small
    assert 150 <= big["peak_mb"] < 250, big
