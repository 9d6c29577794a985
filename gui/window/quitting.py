"""Quitting in under a second: stop the work, wait a little, never for a model's load or a slow server.

What blocked the window's close (measured, see the README): it cancelled every job and then waited
for all of them, up to 30 s.  Jobs stop at their next progress step, but two kinds of wait have
none: a retrieval waiting for the reranker model still loading in its child process (torch takes
seconds to import; 3-5 s on a free machine, 26 s on two busy cores), and a request to the language
model waiting for its answer (up to the client's timeout).  Now the model children are killed at
once and no new one may start (a waiting retrieval then ends, cancelled; a job past its last look at
cancellation cannot start a child that outlives the window), the rest gets :data:`WAIT_MS`, and a job still
running after that is left behind: :func:`leave_now` ends the process without waiting for it once
the event loop is done.  Nothing is lost by that: every write of core is one SQLite transaction,
which a process ending mid-way rolls back (the kill -9 tests of ingest show it), and the window's own
connection is closed before.
"""

from __future__ import annotations

import os
import sys

from gui.common.operations import OperationRunner

WAIT_MS = 600  # for the jobs that stop at their next step (most stop within a few milliseconds)


def stop_work(runner: OperationRunner) -> bool:
    """Cancel every job, kill the model children, wait up to :data:`WAIT_MS`; true when every job stopped."""
    from core.retrieval.dense import stop_model_processes

    runner.pool.cancel_all()
    stop_model_processes()
    return runner.shutdown(WAIT_MS)


def leave_now(runner: OperationRunner, code: int) -> None:
    """After the event loop: end the process at once if a job is still running (it would hold the exit)."""
    if runner.pool.live:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
