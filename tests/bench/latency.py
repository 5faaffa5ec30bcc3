"""Keypress-to-frame latency of the dashboard (issue 11, item 8): one command, one table.

    python -m tests.bench.latency [--work DIR] [--runs demo,60x9,big] [--size 120x40[,80x24,…]]
                                  [--reps 7] [--budget 90] [--json FILE] [--before DIR]

For each run (the bundled demo; a 60-model × 9-attempt run and a 10^6-instance
run made by tests/bench/synth.py in --work, generated once and reused) a fresh
process (``python -m tests.bench.latency probe …``) opens the dashboard
headless and times, ``--reps`` times each:

- ``overview ↓``: ↓ (then ↑, alternately) on the Overview table;
- ``tab → N``: the key of tab N, from the Overview (from Coverage for tab 1);
- ``instances sort``: the next sort order of the Instances table (its sort key
  if the pane binds ``s``, else choosing the next option of its sort Select,
  which is what picking it with the mouse or Enter does);
- ``instances page↓``: PageDown on the Instances table;
- ``instances search n``: ``n`` (next match) just after a new search text was set, so that
  its matches over the name column are computed within the timed frame;
- ``help ?``: ``?`` on the Overview, to the frame that shows the help screen (closed, untimed,
  after each);
- ``no-op key``: a key nothing is bound to: the probe's own floor.

What one figure measures ("frame"): from the moment the key event is handed to
the app's driver (as a terminal's input thread does) until (1) the app and
every widget of the screen have handled every message, those posted by the
handlers included (the probe yields to the event loop until, on two turns
running, no message queue holds a message: the dashboard has no async
handler that could await across turns), and (2) the screen has composed the
frame that shows the result (the compositor renders every dirty widget; in a
terminal this frame is then written out, which headless mode skips). Work handed to thread workers is not in "frame",
but anything the event loop does for it is: a ``@work`` that formats its
arguments on the UI thread, a message handler that blocks. So after each
frame the probe also watches the event loop for 0.3 s and reports the longest
time it was unresponsive ("stall"): a freeze that comes just after the frame
shows there.

The first row of each run, ``instances on screen``, is the time from the
parent's ``time.time()`` before it started the probe process (interpreter
start-up and imports included) to a frame that shows instance rows, pressing
3 as soon as the first frame is up.

``--before DIR`` names a copy of an older tree of the project (``git archive REV | tar -x -C
DIR``): each run and size is then probed with that tree's code and with this one's, one after
the other, and the table puts the two side by side, so that a change is judged within one run
of the probe (the machine's load moves between runs).

An action whose repetitions take longer than ``--budget`` seconds in total
stops early; the table says how many were measured. Targets (issue 11): every
action ≤ 50 ms median and ≤ 100 ms worst; instances on screen ≤ 3 s at 10^6.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tests.support.dashboard import compose_frame, pending_callbacks, send_to_driver

ROOT = Path(__file__).resolve().parents[2]
WATCH_S = 0.3
TABS = {"1": "Overview", "2": "Coverage", "3": "Instances", "4": "pass^k", "5": "Compare"}
MEDIAN_MS, WORST_MS, SHOWN_S = 50.0, 100.0, 3.0


def _quiet(app) -> bool:
    """No message waits in the queue of the app or of any widget of the screen, and no callback waits for
    the next idle."""
    return all(
        not p.message_queue_size and not pending_callbacks(p) for p in (app, *app.screen.walk_children(with_self=True))
    )


async def _frame(app) -> None:
    """Wait until the app and every widget of the screen have handled every message, those posted by the
    handlers included, then compose the frame; again while composing queued more (see the docstring)."""
    while True:
        quiet_turns = 0
        while quiet_turns < 2:  # a handler being run has taken its message off the queue: one more turn
            await asyncio.sleep(0)
            quiet_turns = quiet_turns + 1 if _quiet(app) else 0
        compose_frame(app.screen)
        if _quiet(app):
            return


async def _press(app, key: str) -> float:
    """Milliseconds from handing ``key`` to the driver to the frame that shows its effect."""
    from textual import events

    t = time.perf_counter()
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    send_to_driver(app, event)
    await asyncio.sleep(0)
    await _frame(app)
    return (time.perf_counter() - t) * 1000


async def _stall(seconds: float) -> float:
    """The longest the event loop failed to wake a 5 ms sleeper during ``seconds``, in ms."""
    worst, end = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        await asyncio.sleep(0.005)
        worst = max(worst, (time.perf_counter() - t) * 1000 - 5)
    return max(worst, 0.0)


async def _settle(app, timeout: float = 600) -> None:
    """Let thread workers finish and the app stop loading, so that each action starts from rest."""
    from textual.worker import WorkerCancelled

    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await _frame(app)
        if not getattr(app, "loading", False) and not any(w.is_running for w in app.workers):
            return
        await asyncio.sleep(0.01)


def probe(
    t0: float, run_dir: str | None, benchmark: str | None, size: tuple[int, int], reps: int, budget: float
) -> dict:
    """Runs in the probe process: opens the dashboard and times each action; returns plain data."""
    from textual.widgets import DataTable, Select

    from tcsexam.tui.app import create_app
    from tcsexam.tui.panes.instances.pane import SORT_OPTIONS, InstancesPane
    from tcsexam.tui.panes.instances.table import InstanceTable
    from tcsexam.tui.state import DashboardConfig

    out: dict = {"actions": {}}
    app = create_app(DashboardConfig(run_dir=run_dir, benchmark=benchmark) if run_dir else None)

    async def timed(name: str, action) -> None:
        frames, stalls, spent = [], [], 0.0
        for i in range(reps):
            await _settle(app)
            ms = await action(i)
            frames.append(ms)
            stalls.append(await _stall(WATCH_S))
            spent += ms / 1000
            if spent > budget:
                break
        out["actions"][name] = {"frames_ms": frames, "stalls_ms": stalls}

    async def drive() -> None:
        async with app.run_test(size=size):
            pane = app.query_one(InstancesPane)
            table = app.query_one(InstanceTable)
            while not app.screen_stack:
                await asyncio.sleep(0.005)
            await _frame(app)
            await _press(app, "3")
            while not len(table.order):
                await asyncio.sleep(0.005)
            await _frame(app)
            out["instances_on_screen_s"] = time.time() - t0
            out["rows"] = len(table.order)
            await _press(app, "1")
            await _settle(app)
            overview = app.query_one("#overview-table", DataTable)
            overview.focus()
            out["models"] = overview.row_count

            await timed("no-op key", lambda i: _press(app, "f12"))
            await timed("overview ↓", lambda i: _press(app, "down" if i % 2 == 0 else "up"))
            for key, back in (("2", "1"), ("3", "1"), ("4", "1"), ("5", "1"), ("1", "2")):

                async def switch(i: int, key=key, back=back) -> float:
                    await _press(app, back)  # not timed: each repetition starts from the other tab
                    await _settle(app)
                    return await _press(app, key)

                await timed(f"tab → {key} ({TABS[key]})", switch)

            async def help_screen(i: int) -> float:
                ms = await _press(app, "question_mark")
                await _press(app, "escape")  # not timed: each repetition opens help from the Overview
                return ms

            await _press(app, "1")
            await _settle(app)
            await timed("help ?", help_screen)
            await _press(app, "1")
            await _press(app, "3")
            await _settle(app)
            table.focus()
            sort_key = any(getattr(b, "key", None) == "s" for b in [*pane.BINDINGS, *table.BINDINGS])

            async def sort(i: int) -> float:
                if sort_key:
                    return await _press(app, "s")
                select = pane.query_one("#instances-sort", Select)
                t = time.perf_counter()
                select.value = SORT_OPTIONS[(i + 1) % len(SORT_OPTIONS)][1]
                await _frame(app)
                return (time.perf_counter() - t) * 1000

            out["sort_by"] = "key s" if sort_key else "sort Select"
            await timed("instances sort", sort)
            table.focus()
            await timed("instances page↓", lambda i: _press(app, "pagedown"))
            if hasattr(pane, "query_text"):  # an older tree (--before) has no substring search

                async def search(i: int) -> float:
                    # a new search text each time, so that its matches are computed anew (the first
                    # time also lowers the name column once); then n, the key that steps to a match
                    pane.query_text = ("1", "23", "456", "7", "89")[i % 5]
                    return await _press(app, "n")

                await timed("instances search n", search)

    asyncio.run(drive())
    return out


def ensure_runs(work: Path, wanted: list[str]) -> dict[str, tuple[str | None, str | None]]:
    """The run directories (and benchmark folders) of each named run, generated once into ``work``."""
    from tests.bench.synth import write_big, write_run

    runs: dict[str, tuple[str | None, str | None]] = {}
    for name in wanted:
        if name == "demo":
            runs[name] = (None, None)
        elif name == "big":
            if not (work / "big" / "run" / "cohort.json").is_file():
                print(f"generating {work / 'big'} (10^6 instances) …", file=sys.stderr)
                write_big(work / "big", 1_000_000)
            runs[name] = (str(work / "big" / "run"), str(work / "big" / "bench"))
        else:
            models, attempts = (int(x) for x in name.split("x"))
            folder = work / f"run-{name}"
            if not (folder / "cohort.json").is_file():
                print(f"generating {folder} ({models} models × {attempts} attempts) …", file=sys.stderr)
                write_run(folder, models, attempts)
            runs[name] = (str(folder), None)
    return runs


def summarize(name: str, result: dict) -> list[list[str]]:
    """Table rows of one run: action, n, median, worst, stall, verdict."""
    rows = []
    shown = result["instances_on_screen_s"]
    rows.append(
        [
            name,
            f"instances on screen ({result['rows']:,} rows)",
            "1",
            f"{shown:.2f} s",
            "",
            "",
            "ok" if shown <= SHOWN_S else f"over {SHOWN_S:g} s",
        ]
    )
    for action, r in result["actions"].items():
        frames, stalls = r["frames_ms"], r["stalls_ms"]
        median, worst = statistics.median(frames), max(frames)
        verdict = "ok" if median <= MEDIAN_MS and worst <= WORST_MS and max(stalls) <= WORST_MS else "OVER"
        rows.append(
            [
                name,
                action,
                str(len(frames)),
                f"{median:.1f} ms",
                f"{worst:.1f} ms",
                f"{max(stalls):.1f} ms",
                "" if action == "no-op key" else verdict,
            ]
        )
    return rows


def _probe_process(
    root: Path, run_dir: str | None, bench: str | None, size: str, reps: int, budget: float, label: str
) -> dict:
    """Probe one run at one size in a fresh process running the code of the tree ``root``."""
    cmd = [
        sys.executable,
        "-m",
        "tests.bench.latency",
        "probe",
        repr(time.time()),
        run_dir or "-",
        bench or "-",
        size,
        str(reps),
        str(budget),
    ]
    env = {**os.environ, "PYTHONPATH": str(root)}  # the tree's own tui/ and scoring/, not the installed ones
    done = subprocess.run(cmd, check=False, cwd=root, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        raise SystemExit(f"the probe of {label} failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m tests.bench.latency")
    p.add_argument("--work", default=str(ROOT / "build" / "latency"))
    p.add_argument("--runs", default="demo,60x9,big")
    p.add_argument("--size", default="120x40", help="terminal size(s), e.g. 80x24,120x40,200x50")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--budget", type=float, default=90.0, help="seconds of measured frames per action at most")
    p.add_argument("--json", help="also write the raw figures as JSON")
    p.add_argument("--before", help="a tree of older code to probe beside this one (see the docstring)")
    a = p.parse_args(argv)
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    runs = ensure_runs(work, a.runs.split(","))
    report: dict = {"reps": a.reps, "runs": {}}
    trees = [("before", Path(a.before).resolve()), ("after", ROOT)] if a.before else [("", ROOT)]
    if a.before:
        report["before"] = str(trees[0][1])
    table = [["run", "action", "n", "median", "worst", "stall", f"≤{MEDIAN_MS:g}/{WORST_MS:g} ms"]]
    for size in a.size.split(","):
        for name, (run_dir, bench) in runs.items():
            for tree, root in trees:
                label = f"{name} {size}" + (f" {tree}" if tree else "")
                print(f"probing {label} …", file=sys.stderr)
                result = _probe_process(root, run_dir, bench, size, a.reps, a.budget, label)
                report["runs"][label] = result
                table += summarize(label, result)
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "probe":
        t0, run_dir, bench, size, reps, budget = sys.argv[2:8]
        w, h = (int(x) for x in size.split("x"))
        result = probe(
            float(t0),
            None if run_dir == "-" else run_dir,
            None if bench == "-" else bench,
            (w, h),
            int(reps),
            float(budget),
        )
        print(json.dumps(result))
    else:
        main()
