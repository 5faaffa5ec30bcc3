"""The latency probe (tests/bench/latency.py) measures what it says; its figures are not asserted here."""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable, Static

from tcsexam.tui.app import create_app
from tests.bench import latency


def result(frames, stalls=None, shown=1.0):
    return {
        "instances_on_screen_s": shown,
        "rows": 40,
        "actions": {
            "no-op key": {"frames_ms": [1.0], "stalls_ms": [1.0]},
            "overview ↓": {"frames_ms": frames, "stalls_ms": stalls or [1.0] * len(frames)},
        },
    }


def test_verdict_needs_median_within_50_and_worst_and_stall_within_100_ms():
    verdict = {tuple(r[1:2]): r[-1] for r in latency.summarize("demo", result([10.0, 20.0, 30.0]))}
    assert verdict[("overview ↓",)] == "ok"
    rows = latency.summarize("demo", result([40.0, 45.0, 101.0]))  # worst over 100
    assert rows[-1][-1] == "OVER"
    rows = latency.summarize("demo", result([51.0, 52.0, 53.0]))  # median over 50
    assert rows[-1][-1] == "OVER"
    rows = latency.summarize("demo", result([10.0, 10.0, 10.0], stalls=[1.0, 150.0, 1.0]))  # a freeze after
    assert rows[-1][-1] == "OVER"
    rows = latency.summarize("demo", result([10.0], shown=3.5))
    assert rows[0][-1] == "over 3 s" and rows[0][3] == "3.50 s"
    rows = latency.summarize("demo", result([10.0, 30.0, 20.0, 90.0]))
    assert rows[-1][3:5] == ["25.0 ms", "90.0 ms"]  # median of 10, 20, 30, 90 is (20 + 30) / 2


def test_a_frame_includes_what_the_key_sets_off_in_other_panes():
    """↓ in the Overview selects the next model; the pass^k pane names it once the frame is composed."""
    app = create_app()

    async def drive() -> list[str]:
        titles = []
        async with app.run_test(size=(120, 40)):
            while not app.screen_stack:
                await asyncio.sleep(0.005)
            await latency._settle(app)
            app.query_one("#overview-table", DataTable).focus()
            for key in ("down", "down", "up"):
                await latency._press(app, key)
                titles.append(str(app.query_one("#passk-title", Static).render()).split(" (")[0])
                await latency._settle(app)
        return titles

    assert asyncio.run(drive()) == ["pass^k of borealis-8x22b", "pass^k of cirrus-mini", "pass^k of borealis-8x22b"]
