"""SVG snapshots of the whole app, a handful: the tab bar at 80×24, 120×40 and 200×50, the help, one modal
screen (the run switcher, two runs open) and a rejected run. Each pane alone, what its keys open and the
Leaderboard of two runs are in tests/test_pane_snapshots.py: a new tab changes the six pictures here,
none of those.

Update after a deliberate change of the look with `pytest tests/test_snapshots.py --snapshot-update`
and review the SVGs in tests/__snapshots__/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tcsexam.tui.app import create_app
from tcsexam.tui.panes import PANES
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import settle

SIZES = {"80x24": (80, 24), "120x40": (120, 40), "200x50": (200, 50)}
TAB_KEYS = {tab.id: tab.key for tab in PANES}
ROOT = Path(__file__).resolve().parents[1]
TAU2 = ROOT / "tests" / "data" / "tau2" / "derived" / "derived_C_edge_4x5.json"


async def until_still(pilot, tries: int = 60, alike: int = 3) -> None:
    """Wait until the screen stops changing: ``alike`` screenshots in a row the same, each taken after
    every message then queued was handled (``pilot.pause()``) and a short wait. A table laid out in
    the frame after the last message, or a pushed screen's first layout, are drawn before the snapshot
    whatever the machine's load: on a starved machine one step of a layout can outlast a short wait,
    so two shots alike is not enough there."""
    last, same = None, 0
    for _ in range(tries):
        await pilot.pause()
        await pilot.pause(0.05)
        shot = re.sub(r"terminal-\d+", "terminal", pilot.app.export_screenshot())  # an id per export
        same = same + 1 if shot == last else 1
        if same >= alike:
            return
        last = shot
    raise AssertionError("the screen kept changing")


def press_and_settle(*keys: str):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await until_still(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)
            await until_still(pilot)

    return run_before


# The whole app at each size: the header, the tab bar (short titles below 110 columns) and the footer
# around the first tab. Each pane's own pictures, alone, are in tests/test_pane_snapshots.py.
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("tab", ["overview"])
def test_demo_tab_snapshot(snap_compare, tab, size):
    assert snap_compare(create_app(), terminal_size=SIZES[size], run_before=press_and_settle(TAB_KEYS[tab]))


def test_help_snapshot(snap_compare):
    assert snap_compare(create_app(), terminal_size=SIZES["80x24"], run_before=press_and_settle("question_mark"))


def test_diagnostics_snapshot(snap_compare, tmp_path, monkeypatch):
    run = tmp_path / "bad-run"  # the header names the folder '.' is
    run.mkdir()
    (run / "attempts.csv").write_text("model,track\nm,theorem\n")
    (run / "cohort.json").write_text('{"suite": "lite", "solver_protocol": "offline"}')
    monkeypatch.chdir(run)  # relative paths keep the snapshot independent of the machine
    app = create_app(DashboardConfig(run_dir="."))
    assert snap_compare(app, terminal_size=SIZES["120x40"], run_before=press_and_settle())


@pytest.fixture
def two_runs(tmp_path, monkeypatch) -> None:
    """The demo and an online copy of it (tests/test_tui_multirun.py builds it), as relative RUN_DIRs."""
    import shutil

    from tcsexam.scoring.pipeline.benchmark import demo_run
    from tests.support.runs import online_copy

    shutil.copytree(demo_run(), tmp_path / "demo")
    online_copy(tmp_path / "online")
    monkeypatch.chdir(tmp_path)  # relative RUN_DIRs keep the header independent of the machine


def test_two_runs_switcher_snapshot(snap_compare, two_runs):
    app = create_app(DashboardConfig(run_dir="demo", more_runs=["online"]))
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=press_and_settle("R"))
