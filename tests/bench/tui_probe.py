"""Headless dashboard probe, run in a fresh process by run_bench.py; prints one JSON line.

    python -m tests.bench.tui_probe bare T0
    python -m tests.bench.tui_probe dashboard T0 RUN_DIR BENCHMARK [--reps N]

T0 is the parent's time.time() just before it started this process, so
"first_frame" counts interpreter start-up and imports.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time


def maxrss_mb(who=resource.RUSAGE_SELF) -> float:
    """Peak resident memory. For this process the kernel's VmHWM of the current image: ru_maxrss
    would carry over the peak of a large parent that forked this process before exec."""
    if who == resource.RUSAGE_SELF:
        try:
            with open("/proc/self/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
    return resource.getrusage(who).ru_maxrss / 1024


def bare(t0: float) -> dict:
    from textual.app import App
    from textual.widgets import Static

    class Bare(App):
        def compose(self):
            yield Static("hello")

        def on_mount(self):
            self.call_after_refresh(self.done)

        def done(self):
            self.first_frame = time.time() - t0
            self.exit()

    app = Bare()
    app.run(headless=True, size=(140, 45))
    return {"first_frame": app.first_frame, "maxrss_mb": maxrss_mb()}


def dashboard(t0: float, run_dir: str, benchmark: str, reps: int) -> dict:
    from tcsexam.tui.app import create_app
    from tcsexam.tui.state import DashboardConfig

    out: dict = {}
    app = create_app(DashboardConfig(run_dir=run_dir, benchmark=benchmark))

    async def drive() -> None:
        from tcsexam.tui.panes.instances.pane import InstancesPane
        from tcsexam.tui.panes.instances.table import InstanceTable

        async with app.run_test(size=(140, 45)) as pilot:
            out["first_frame"] = time.time() - t0
            while app.state is None and app.problems_text is None:
                await pilot.pause(0.01)
            out["run_loaded"] = time.time() - t0
            await pilot.press("3")
            pane = app.query_one(InstancesPane)
            while pane.columns is None:
                await pilot.pause(0.01)
            await pilot.pause()
            out["instances_shown"] = time.time() - t0
            table = app.query_one(InstanceTable)
            out["rows"] = len(table.order)
            height = table.scrollable_content_region.height

            def render_page() -> None:
                for y in range(height):
                    table.render_line(y)

            t = time.perf_counter()
            for _ in range(reps):
                table.action_page(1)
                render_page()
            out["page_down_ms"] = (time.perf_counter() - t) / reps * 1000
            t = time.perf_counter()
            for k in range(reps):
                table.apply("phi" if k % 2 else "z", bool(k % 2), None)
                render_page()
            out["sort_ms"] = (time.perf_counter() - t) / reps * 1000
            t = time.perf_counter()
            for k in range(reps):
                table.apply("instance", bool(k % 2), None)
                render_page()
            out["sort_by_name_ms"] = (time.perf_counter() - t) / reps * 1000
            t = time.perf_counter()
            for _ in range(reps):
                table.apply("instance", False, 1)
                render_page()
            out["filter_ms"] = (time.perf_counter() - t) / reps * 1000
            out["maxrss_mb"] = maxrss_mb()
            out["helper_maxrss_mb"] = maxrss_mb(resource.RUSAGE_CHILDREN)

    asyncio.run(drive())
    return out


if __name__ == "__main__":
    mode, t0 = sys.argv[1], float(sys.argv[2])
    if mode == "bare":
        result = bare(t0)
    else:
        reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
        result = dashboard(t0, sys.argv[3], sys.argv[4], reps)
    print(json.dumps(result))
