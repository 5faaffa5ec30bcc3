"""SVG snapshots of each pane alone, at 80×24 and 200×50: a small app composes just that pane and feeds
it the bundled demo, or a generated 60-model run, as the dashboard does (tests/support/pane_host.py), so
a pane's pictures change only with that pane, never with a new tab or another pane. What a pane's keys
open is here too (the Overview's filter bar and worst instances, the tau2 browser's screens), and the
Leaderboard of two runs. The whole app's few pictures (the tab bar, the help, one modal, a rejected run)
are in tests/test_snapshots.py.

Update after a deliberate change of a pane's look with `pytest tests/test_pane_snapshots.py
--snapshot-update` and review the SVGs in tests/__snapshots__/.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from tcsexam.tui.loader import load_state
from tcsexam.tui.panes import PANES
from tcsexam.tui.state import DashboardConfig, load_tau2
from tests.support.dashboard import settle, wait_until
from tests.support.pane_host import PaneHost, feeder
from tests.test_snapshots import ROOT, TAU2, until_still

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}
TABS = {tab.id: tab for tab in PANES}


@pytest.fixture(scope="module")
def demo():
    return load_state(DashboardConfig())


@pytest.fixture(scope="module")
def tau2() -> dict | None:
    """The tau2 test file, read by a path relative to the checkout (the pane shows it): the same anywhere."""
    if not TAU2.is_file():
        return None
    with contextlib.chdir(ROOT):
        return load_tau2(os.path.relpath(TAU2, ROOT))


async def settled(pilot) -> None:
    await until_still(pilot)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("tab", TABS)
def test_pane_snapshot(snap_compare, demo, tau2, tab, size):
    if tab == "tau2" and tau2 is None:
        pytest.skip("tests/data/tau2 is missing")
    app = PaneHost(TABS[tab], feeder(TABS[tab], demo, tau2))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=settled)


@pytest.fixture(scope="session")
def many_models(tmp_path_factory) -> Path:
    """60 models × 1 attempt on the bundled Full suite (seeded: the same run every time)."""
    from tests.bench.synth import write_run

    root = tmp_path_factory.mktemp("synth")
    write_run(root / "run60", models=60, attempts=1, seed=1)
    return root


@pytest.fixture(scope="module")
def sixty(many_models):
    """The 60-model run, loaded by a path relative to its folder (the tests run there: the panes that read
    its files later, Instances, find them, and no picture holds the machine's temporary folder)."""
    with contextlib.chdir(many_models):
        return load_state(DashboardConfig(run_dir="run60"))


# The panes whose pictures change with the number of models, at both sizes; two others once
MANY_MODELS = [(tab, size) for tab in ("overview", "coverage", "compare", "leaderboard") for size in SIZES]
MANY_MODELS += [("instances", "200x50"), ("passk", "200x50")]


@pytest.mark.parametrize(("tab", "size"), MANY_MODELS, ids=[f"{tab}-{size}" for tab, size in MANY_MODELS])
def test_many_models_pane_snapshot(snap_compare, many_models, sixty, monkeypatch, tab, size):
    monkeypatch.chdir(many_models)
    app = PaneHost(TABS[tab], feeder(TABS[tab], sixty, None, source="run60"))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=settled)


async def filter_status_inc(pilot) -> None:
    """`/` and a status typed: the filter bar, its count and the rows it leaves (once the filter is applied;
    the bar's cursor held still, not blinking, so that the screenshot does not depend on when it is taken)."""
    from textual.widgets import Input

    from tcsexam.tui.widgets.filter_bar import FilterBar

    await until_still(pilot)
    await pilot.press("slash", *"status", "colon", *"inc")
    bar = pilot.app.main.query_one("#overview-filter", FilterBar)
    await wait_until(pilot, lambda: bar.applied == "status:inc", "the filter applied")
    bar.query_one(Input).cursor_blink = False
    await until_still(pilot)


async def worst_of_the_second_model(pilot) -> None:
    """`w` on the Overview's second row: that model's worst instances across its solver tasks."""
    from tcsexam.tui.panes.overview.worst import WorstScreen

    await until_still(pilot)
    await pilot.press("down", "w")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, WorstScreen), "the worst instances open")
    await until_still(pilot)


def open_tau2_browser(depth: int):
    """Enter on the tau2 pane's first task (its simulations), and with depth 2 Enter on its first
    simulation (its reward and messages)."""

    async def run_before(pilot) -> None:
        from tcsexam.tui.panes.tau2.simulations import Tau2SimulationsScreen
        from tcsexam.tui.panes.tau2.trajectory import Tau2TrajectoryScreen

        app = pilot.app
        tasks = app.main.query_one("#tau2-tasks")
        await wait_until(pilot, lambda: tasks.row_count > 0, "the tau2 tasks listed")
        # the pane drawn whole before a screen goes over it: a pushed screen keeps the one below as it was
        await until_still(pilot)
        for screen in (Tau2SimulationsScreen, Tau2TrajectoryScreen)[:depth]:
            await pilot.press("enter")
            await wait_until(pilot, lambda screen=screen: isinstance(app.screen, screen), f"{screen.__name__} open")
            await settle(pilot)
        if depth == 2:
            await wait_until(pilot, lambda: app.screen.trajectory is not None, "the simulation read")
        await until_still(pilot)

    return run_before


KEYS = {
    "overview-filter": ("overview", filter_status_inc),
    "overview-worst": ("overview", worst_of_the_second_model),
    "tau2-simulations": ("tau2", open_tau2_browser(1)),
    "tau2-trajectory": ("tau2", open_tau2_browser(2)),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("case", KEYS)
def test_what_a_panes_keys_open_snapshot(snap_compare, demo, tau2, case, size):
    tab, run_before = KEYS[case]
    if tab == "tau2" and tau2 is None:
        pytest.skip("tests/data/tau2 is missing")
    app = PaneHost(TABS[tab], feeder(TABS[tab], demo, tau2), state=demo)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_two_runs_leaderboard_pane_snapshot(snap_compare, tmp_path, monkeypatch, demo, size):
    """The Leaderboard of the demo and an online copy of it (tests/test_tui_multirun.py builds it): one
    group per protocol, each run named as the dashboard names it."""
    from tcsexam.tui.panes.leaderboard.views import leaderboard_groups
    from tests.support.runs import online_copy

    online_copy(tmp_path / "online")
    monkeypatch.chdir(tmp_path)  # a relative RUN_DIR keeps the pictures independent of the machine
    online = load_state(DashboardConfig(run_dir="online"))
    groups, problems = leaderboard_groups([("DEMO", demo.document), ("online", online.document)])
    app = PaneHost(TABS["leaderboard"], lambda pane: pane.show(groups, problems, [], 2, []))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=settled)
