"""Waiting for a state, with a deadline: the one place the tests read the clock to give up.

A test waits for the state it needs (a file written, a child started, the dashboard still), never
for a fixed time; the deadline is generous (only something broken, or a machine far too busy, takes
that long) and only decides when to fail, naming what was awaited."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator


def tries(what: str | Callable[[], str], timeout: float) -> Iterator[int]:
    """Numbers a waiting loop's tries (0, 1, ...) until ``timeout`` seconds have passed since the first,
    then fails the test saying ``what`` (a string, or a function giving one then) was awaited. The loop
    stops by itself once the state holds, and pauses (sleeps, or lets the app run) between tries."""
    deadline = time.monotonic() + timeout
    n = 0
    while True:
        yield n
        n += 1
        if time.monotonic() > deadline:
            raise AssertionError(f"{what() if callable(what) else what}: still not so after {timeout:g} s")


def wait_for(condition: Callable[[], object], what: str, timeout: float = 30.0, pause: float = 0.005):
    """Whatever ``condition()`` first gives that is true, asked every ``pause`` seconds; fails the test
    after ``timeout`` seconds, saying ``what`` was awaited."""
    for _ in tries(what, timeout):
        if result := condition():
            return result
        time.sleep(pause)
