"""SVG snapshots of each pane on the bundled demo at a fixed terminal size (140×45).

Update after a deliberate change of the look with `pytest tests/test_snapshots.py --snapshot-update`
and review the SVGs in tests/__snapshots__/.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import settle
from tui.app import create_app
from tui.state import DashboardConfig

SIZE = (140, 45)
ROOT = Path(__file__).resolve().parents[1]
TAU2 = ROOT / "tests" / "data" / "tau2" / "derived" / "derived_C_edge_4x5.json"


def press_and_settle(*keys: str):
    async def run_before(pilot) -> None:
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)
            await pilot.pause(0.2)  # let a pushed screen (help) finish its first layout
            await pilot.pause()
    return run_before


@pytest.mark.parametrize("tab", ["1", "2", "3", "4", "5"])
def test_pane_snapshot(snap_compare, tab):
    assert snap_compare(create_app(), terminal_size=SIZE, run_before=press_and_settle(tab))


def test_help_snapshot(snap_compare):
    assert snap_compare(create_app(), terminal_size=SIZE, run_before=press_and_settle("question_mark"))


def test_diagnostics_snapshot(snap_compare, tmp_path, monkeypatch):
    (tmp_path / "attempts.csv").write_text("model,track\nm,theorem\n")
    (tmp_path / "cohort.json").write_text('{"suite": "lite", "solver_protocol": "offline"}')
    monkeypatch.chdir(tmp_path)  # relative paths keep the snapshot independent of the machine
    app = create_app(DashboardConfig(run_dir="."))
    assert snap_compare(app, terminal_size=SIZE, run_before=press_and_settle())


@pytest.mark.skipif(not TAU2.is_file(), reason="../shared/data/tau2 is not beside the checkout")
def test_tau2_snapshot(snap_compare, monkeypatch):
    monkeypatch.chdir(ROOT)
    app = create_app(DashboardConfig(tau2=os.path.relpath(TAU2, ROOT)))
    assert snap_compare(app, terminal_size=SIZE, run_before=press_and_settle())
