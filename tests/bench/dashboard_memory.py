"""The dashboard's memory over reloads (docs/dashboard-large-runs.md#memory-over-reloads).

    python -m tests.bench.dashboard_memory RUN_DIR [--benchmark DIR] [--reloads 5] [--before PYTHON]

Opens RUN_DIR headless (``App.run_test``, 120x40) in a fresh process set up as ``tcsexam tui`` sets up
its own (tui/heap.py ``map_large_blocks``, where the install has it), waits until the load is done and the
whole heap settled after it (no load, no settle owed, and a whole settle since the load began:
tui/heap.py; at most 90 s), then presses ``r`` --reloads times, waiting the same way after each. Prints
the process's resident memory (VmRSS) after the first open and after each reload, and the last over the
first. --before PYTHON: the same with another install's interpreter (e.g. a venv of an older checkout),
run first, and its ratio beside.

Waiting for a whole settle matters: until it runs, the run a reload replaced is still held (it dies in
reference cycles), and a reading taken then counts both runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from tests.bench.installed import compile_installed

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import asyncio, json, sys, time
from tcsexam.tui import heap
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig

if hasattr(heap, "map_large_blocks"):  # as the console script does before it opens the dashboard
    heap.map_large_blocks()
settles = [0]
whole = heap.Heap.settle

def counted(self):
    settles[0] += 1
    whole(self)

heap.Heap.settle = counted

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

async def quiet(pilot, app, before):
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if not app.loading and app._pause_timer is None and app.heap.piecemeal == 0 and settles[0] > before:
            break
        await pilot.pause(0.1)

async def drive():
    config = DashboardConfig(run_dir=sys.argv[1], benchmark=sys.argv[2] or None)
    app = create_app(config)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.state is None or app.loading:
            await pilot.pause(0.1)
        await quiet(pilot, app, 0)
        seen = [rss_mb()]
        for _ in range(int(sys.argv[3])):
            before = settles[0]
            await pilot.press("r")
            while app.loading:
                await pilot.pause(0.1)
            await quiet(pilot, app, before)
            seen.append(rss_mb())
        print(json.dumps(seen))

asyncio.run(drive())
"""


def reloads(python: str, run_dir: str, benchmark: str, count: int) -> dict:
    proc = subprocess.run(
        [python, "-c", PROBE, run_dir, benchmark, str(count)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if proc.returncode:
        raise SystemExit(f"the headless probe failed:\n{proc.stderr}")
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"rss_mb": [round(x) for x in seen], "last_over_first": round(seen[-1] / seen[0], 2)}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("--benchmark", default="")
    p.add_argument("--reloads", type=int, default=5)
    p.add_argument("--before", metavar="PYTHON", help="another install's interpreter, measured first")
    args = p.parse_args(argv)
    compile_installed()
    if args.before:
        compile_installed(args.before)
    result = {}
    if args.before:
        result["before"] = reloads(args.before, args.run_dir, args.benchmark, args.reloads)
    result["after"] = reloads(sys.executable, args.run_dir, args.benchmark, args.reloads)
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
