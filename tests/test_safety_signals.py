"""docs/safety.md: SIGINT, SIGTERM and SIGHUP during a large write leave no temporary file and the old
file byte-identical. A child process writes through ``scoring.safety.outputs.write_atomic`` and is
signalled once its temporary file holds data, and writes on until the signal comes; an ignored signal
(``nohup``) stays ignored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.processes import shell_signals
from tests.support.waiting import wait_for

ROOT = Path(__file__).resolve().parents[1]
OLD = b'{"old": "index"}\n' * 1000

CHILD = textwrap.dedent("""
    import signal, sys, time
    from tcsexam.scoring.safety.outputs import Interrupted, write_atomic
    if sys.argv[2] == "ignore-hup":
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    elif sys.argv[2] == "default":  # as a process started with default dispositions
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    def chunks():
        if sys.argv[2] == "ignore-hup":  # about 3 s of writing, 256 KiB at a time, then done
            for _ in range(300):
                yield b"n" * (1 << 18)
                time.sleep(0.01)
            return
        # a first 256 KiB, then a byte at a time until the signal comes (at most a minute): the
        # signal the test sends once it sees data always lands mid-write, however busy the machine
        yield b"n" * (1 << 18)
        for _ in range(6000):
            time.sleep(0.01)
            yield b"n"
    try:
        write_atomic(sys.argv[1], chunks())
    except Interrupted as exc:
        sys.exit(128 + exc.signum)
    sys.exit(0)
""")


def start_writer(tmp_path: Path, mode: str = "handled"):
    target = tmp_path / "index.json"
    target.write_bytes(OLD)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target), mode],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=shell_signals,
    )

    def writing_or_ended() -> str | None:
        temps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        if temps and temps[0].stat().st_size > 0:
            return "writing"
        return "ended" if child.poll() is not None else None

    try:
        state = wait_for(writing_or_ended, "the writer's temporary file holding data")
    except AssertionError:
        child.kill()
        raise
    if state == "writing":
        return child, target
    raise AssertionError(f"the writer never started writing (exit {child.poll()})")


SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.mark.parametrize("mode", ["handled", "default"])
@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_signal_mid_write_leaves_no_temp_file_and_the_old_file_intact(tmp_path, sig, mode):
    child, target = start_writer(tmp_path, mode)
    child.send_signal(sig)
    code = child.wait(timeout=30)
    assert code == 128 + sig, f"exit {code}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.json"]
    assert target.read_bytes() == OLD


def test_two_signals_in_a_row_still_leave_no_temp_file(tmp_path):
    child, target = start_writer(tmp_path)
    child.send_signal(signal.SIGTERM)
    child.send_signal(signal.SIGHUP)
    code = child.wait(timeout=30)
    assert code in (128 + signal.SIGTERM, 128 + signal.SIGHUP, -signal.SIGTERM, -signal.SIGHUP)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.json"]
    assert target.read_bytes() == OLD


def test_an_ignored_hangup_stays_ignored_and_the_write_completes(tmp_path):
    child, target = start_writer(tmp_path, "ignore-hup")
    child.send_signal(signal.SIGHUP)
    assert child.wait(timeout=60) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.json"]
    assert target.stat().st_size == 300 << 18
