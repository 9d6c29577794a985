"""What the kernel says about this process's POSIX locks and a private X server, for the safety and window tests."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator


def locks_on(path: Path) -> list[str]:
    """This process's POSIX locks on ``path`` as /proc/locks lists them (what every other process sees).

    The row number is left out: it changes as other processes take and drop locks.
    """
    inode = os.stat(path).st_ino
    with open("/proc/locks", encoding="ascii") as table:
        rows = table.read().splitlines()
    return [" ".join(r.split()[1:]) for r in rows
            if r.split()[4] == str(os.getpid()) and r.split()[5].endswith(f":{inode}")]


@contextlib.contextmanager
def private_x_server() -> Iterator[str | None]:
    """A private Xvfb server (1280×800) and its DISPLAY value; None where Xvfb is not installed.

    Xvfb picks a free display number itself (-displayfd), so parallel runs never collide.
    """
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        yield None
        return
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as numbers:
        number = numbers.readline().strip()
    try:
        yield f":{number}" if number else None
    finally:
        server.terminate()
        server.wait(timeout=10)
