"""Children that tests signal start with the dispositions and mask a shell gives them."""

from __future__ import annotations

import signal

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def shell_signals() -> None:
    """``preexec_fn`` of a child a test signals: SIGINT, SIGTERM and SIGHUP at their defaults and no
    signal blocked, whatever the test runner's process had set (in a loaded full run, children of an
    xdist worker once ignored SIGINT and SIGHUP, and a write ran on past its signal)."""
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
