"""The dashboard on a run of many models: time to the Overview, and how fast `q` is handled while it loads.

    python -m tests.bench.dashboard_load [--models 2000] [--at 0.5,1,2,4,8] [--workdir DIR] [--json FILE]

Generates a leaderboard of --models models (tests/bench/synth.py ``write_cohort``: 7 Lite-like tasks,
one attempt of each, no records), then measures, each in a fresh process:

  1. overview: `tcsexam tui RUN_DIR` headless (``App.run_test``, 120x40) from the process's start to
     the Overview's table holding every model; the peak resident memory of the dashboard and of the
     process that scored the run (reported);
  2. quit: `tcsexam tui RUN_DIR` in a pseudo-terminal, `q` typed --at seconds after its start (one
     fresh dashboard per moment), timed from the key (or from the moment the app took the screen, if
     later) to the app giving the screen back (handled; the worst is judged: target <= 0.2 s) and to
     the process's exit; whether a process the dashboard started outlives it (target: none).

Prints one JSON document; absolute times drift on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import resource
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from tests.bench.installed import compile_installed

ROOT = Path(__file__).resolve().parents[2]

# The headless probe (a fresh process): prints {"overview_s", "dashboard_mb", "loader_mb"} as one JSON line.
PROBE = """
import asyncio, json, os, resource, sys, time
t0 = float(sys.argv[2])
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig

def hwm():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024

async def drive():
    app = create_app(DashboardConfig(run_dir=sys.argv[1], benchmark=sys.argv[3]))
    out = {}
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.query_one("#overview-table")
        while not (app.state is not None and table.row_count == len(app.state.document["models"])):
            await asyncio.sleep(0.02)
        await pilot.pause()
        out["overview_s"] = time.time() - t0
        out["models"] = table.row_count
        out["dashboard_mb"] = hwm()
    out["loader_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(drive())
"""


def overview(run_dir: Path, benchmark: Path) -> dict:
    t0 = time.time()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(run_dir), repr(t0), str(benchmark)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if proc.returncode:
        raise SystemExit(f"the headless probe failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def children_of(pid: int) -> list[int]:
    """Every process whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def quit_at(run_dir: Path, benchmark: Path, at: float, timeout: float = 60.0) -> dict:
    """Start the dashboard in a pty, type `q` ``at`` seconds after the start; seconds from `q` to its exit,
    and the processes it had started that are still alive once it has gone."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the dashboard
        os.chdir(ROOT)
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        os.environ["TERM"] = "xterm-256color"
        os.execv(
            sys.executable,
            [sys.executable, "-m", "tcsexam.tui.cli", "tui", str(run_dir), "--benchmark", str(benchmark)],
        )
    import fcntl

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    start = time.monotonic()
    sent = started = left_screen = None
    seen: set[int] = set()
    status = None
    while True:
        now = time.monotonic()
        if sent is None and now - start >= at:
            os.write(fd, b"q")
            sent = time.monotonic()
        if sent is not None and now - sent > timeout:
            os.kill(pid, signal.SIGKILL)
        seen.update(children_of(pid))
        ready, _, _ = select.select([fd], [], [], 0.005)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if started is None and b"\x1b[?1049h" in chunk:
                started = time.monotonic()  # the app took the screen: it reads keys from now on
            if sent is not None and left_screen is None and b"\x1b[?1049l" in chunk:
                left_screen = time.monotonic()  # q handled: the app gave the screen back
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            ended = time.monotonic()
            break
    os.close(fd)
    time.sleep(0.2)
    left = [p for p in seen if alive(p)]
    for p in left:  # a process that outlived the dashboard: report it, then end it
        os.kill(p, signal.SIGKILL)
    return {
        "at_s": at,
        "app_up_s": started - start if started is not None else None,
        "handled_s": left_screen - max(sent, started or sent) if left_screen is not None and sent else None,
        "quit_s": ended - max(sent, started or sent) if sent is not None else None,
        "exit_code": os.waitstatus_to_exitcode(status),
        "children_seen": len(seen),
        "children_left": len(left),
    }


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m tests.bench.dashboard_load")
    p.add_argument("--models", type=int, default=2000)
    p.add_argument("--at", default="0.5,1,2,4,8", help="seconds after the start at which q is typed")
    p.add_argument("--workdir")
    p.add_argument("--json")
    a = p.parse_args(argv)
    from tests.bench.synth import write_cohort

    # as an install does (a module the dashboard imports while it runs is not compiled on its event loop)
    compile_installed()
    with tempfile.TemporaryDirectory(dir=a.workdir) as tmp:
        out = Path(tmp) / f"cohort-{a.models}"
        write_cohort(out, a.models)
        run_dir, bench = out / "run", out / "bench"
        result = {"models": a.models, "overview": overview(run_dir, bench)}
        result["quit"] = [quit_at(run_dir, bench, float(t)) for t in a.at.split(",")]
    handled = [q["handled_s"] for q in result["quit"] if q["handled_s"] is not None]
    result["q_handled_worst_s"] = max(handled) if handled else None
    result["q_to_exit_worst_s"] = max(q["quit_s"] for q in result["quit"])
    result["children_left"] = sum(q["children_left"] for q in result["quit"])
    result["target"] = {"overview_s": 10.0, "q_handled_worst_s": 0.2, "children_left": 0}
    text = json.dumps(result, indent=1)
    print(text)
    if a.json:
        Path(a.json).write_text(text + "\n")
    return result


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
