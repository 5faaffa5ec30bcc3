"""SVG snapshots of the whole app: the tab bar at 80×24, 120×40 and 200×50, the help, the filter bar, the
modal screens (worst instances, the tau2 browser, the run switcher), a rejected run, --tau2 alone and two
runs open at once. Each pane alone, on the demo and on a generated 60-model run, is in
tests/test_pane_snapshots.py: a new tab changes the pictures here that show the tab bar, none of those.

Update after a deliberate change of the look with `pytest tests/test_snapshots.py --snapshot-update`
and review the SVGs in tests/__snapshots__/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tcsexam.tui.app import create_app
from tcsexam.tui.panes import PANES
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import settle, wait_until

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


@pytest.mark.parametrize("size", ["80x24", "200x50"])
def test_filtered_overview_snapshot(snap_compare, size):
    """`/` and a status typed: the filter bar, its count and the rows it leaves (once the filter is applied;
    the bar's cursor held still, not blinking, so that the screenshot does not depend on when it is taken)."""
    from textual.widgets import Input

    from tcsexam.tui.widgets.filter_bar import FilterBar

    async def run_before(pilot) -> None:
        await press_and_settle("slash", *"status", "colon", *"inc")(pilot)
        bar = pilot.app.main.query_one("#overview-filter", FilterBar)
        await wait_until(pilot, lambda: bar.applied == "status:inc", "the filter applied")
        bar.query_one(Input).cursor_blink = False
        await until_still(pilot)

    assert snap_compare(create_app(), terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", ["80x24", "200x50"])
def test_worst_instances_snapshot(snap_compare, size):
    """`w` in the Overview: the selected model's worst instances across its solver tasks."""
    assert snap_compare(create_app(), terminal_size=SIZES[size], run_before=press_and_settle("down", "w"))


@pytest.mark.parametrize("size", ["80x24", "120x40"])
def test_help_snapshot(snap_compare, size):
    assert snap_compare(create_app(), terminal_size=SIZES[size], run_before=press_and_settle("question_mark"))


def test_diagnostics_snapshot(snap_compare, tmp_path, monkeypatch):
    run = tmp_path / "bad-run"  # the header names the folder '.' is
    run.mkdir()
    (run / "attempts.csv").write_text("model,track\nm,theorem\n")
    (run / "cohort.json").write_text('{"suite": "lite", "solver_protocol": "offline"}')
    monkeypatch.chdir(run)  # relative paths keep the snapshot independent of the machine
    app = create_app(DashboardConfig(run_dir="."))
    assert snap_compare(app, terminal_size=SIZES["120x40"], run_before=press_and_settle())


@pytest.mark.skipif(not TAU2.is_file(), reason="tests/data/tau2 is missing")
@pytest.mark.parametrize("size", ["80x24"])
def test_tau2_snapshot(snap_compare, monkeypatch, size):
    """--tau2 alone: the app opens on the tau2 tab (the pane's own pictures are the pane snapshots')."""
    monkeypatch.chdir(ROOT)
    app = create_app(DashboardConfig(tau2=os.path.relpath(TAU2, ROOT)))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=press_and_settle())


@pytest.fixture
def two_runs(tmp_path, monkeypatch) -> None:
    """The demo and an online copy of it (tests/test_tui_multirun.py builds it), as relative RUN_DIRs."""
    import shutil

    from tcsexam.scoring.pipeline.benchmark import demo_run
    from tests.support.runs import online_copy

    shutil.copytree(demo_run(), tmp_path / "demo")
    online_copy(tmp_path / "online")
    monkeypatch.chdir(tmp_path)  # relative RUN_DIRs keep the header independent of the machine


@pytest.mark.parametrize("size", ["80x24", "200x50"])
def test_two_runs_leaderboard_snapshot(snap_compare, two_runs, size):
    app = create_app(DashboardConfig(run_dir="demo", more_runs=["online"]))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=press_and_settle("8"))


def test_two_runs_switcher_snapshot(snap_compare, two_runs):
    app = create_app(DashboardConfig(run_dir="demo", more_runs=["online"]))
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=press_and_settle("R"))


def open_tau2_browser(depth: int):
    """The tau2 tab, Enter on its first task (its simulations), and with depth 2 Enter on the first
    simulation (its reward and messages)."""

    from tcsexam.tui.panes.tau2.simulations import Tau2SimulationsScreen
    from tcsexam.tui.panes.tau2.trajectory import Tau2TrajectoryScreen

    async def run_before(pilot) -> None:
        app = pilot.app
        await press_and_settle("6")(pilot)
        tasks = app.main.query_one("#tau2-tasks")
        await wait_until(pilot, lambda: tasks.row_count > 0, "the tau2 file read and its tasks listed")
        tasks.focus()
        # The tab is drawn whole before a screen goes over it: a pushed screen keeps the one below as it
        # was last drawn, so an Enter before the tab's last layout froze a half-laid-out tab behind it
        await until_still(pilot)
        for screen in (Tau2SimulationsScreen, Tau2TrajectoryScreen)[:depth]:
            await pilot.press("enter")
            await wait_until(pilot, lambda screen=screen: isinstance(app.screen, screen), f"{screen.__name__} open")
            await settle(pilot)
        if depth == 2:
            await wait_until(pilot, lambda: app.screen.trajectory is not None, "the simulation read")
        await until_still(pilot)

    return run_before


@pytest.mark.skipif(not TAU2.is_file(), reason="tests/data/tau2 is missing")
@pytest.mark.parametrize("size", ["80x24", "200x50"])
@pytest.mark.parametrize("screen", ["simulations", "trajectory"])
def test_tau2_browser_snapshot(snap_compare, monkeypatch, screen, size):
    monkeypatch.chdir(ROOT)
    app = create_app(DashboardConfig(tau2=os.path.relpath(TAU2, ROOT)))
    depth = {"simulations": 1, "trajectory": 2}[screen]
    assert snap_compare(app, terminal_size=SIZES[size], run_before=open_tau2_browser(depth))
