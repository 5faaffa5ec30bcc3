"""SVG snapshots of each pane alone, at 80×24 and 200×50: a small app composes just that pane and feeds
it the bundled demo, or a generated 60-model run, as the dashboard does (tests/support/pane_host.py), so
a pane's pictures change only with that pane, never with a new tab or another pane. The whole app's
pictures (the tab bar, the help, modal screens, several runs) are in tests/test_snapshots.py.

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
