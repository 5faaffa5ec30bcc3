"""Thread workers that let go of what they were given once they end.

Textual runs a thread worker in the event loop's default executor and marks it as the running worker
(``textual.worker.active_worker``) in the pool thread's own context, a mark it never clears. A finished
worker therefore stays referenced by that thread, and its arguments with it, until the thread happens
to run another worker: a pane's worker given a run kept a replaced run of 2,000 models (about 240 MB)
alive after a reload (docs/dashboard-large-runs.md#memory-over-reloads). ``released`` wraps the callable
of a thread worker so that the mark is cleared when it ends. Every thread worker of tui/ is wrapped so
(tests/test_released_workers.py checks each one, and fails once Textual clears the mark itself, when
this module can go).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

from textual.worker import active_worker

P = ParamSpec("P")
R = TypeVar("R")


def released(work: Callable[P, R]) -> Callable[P, R]:
    """``work``, after which the pool thread that ran it as a thread worker no longer refers to the worker."""

    @functools.wraps(work)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return work(*args, **kwargs)
        finally:
            active_worker.set(cast(Any, None))

    return run
