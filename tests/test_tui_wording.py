"""The dashboard as a reader meets it: the header names the run's folder, never '.'; a Diagnostics row is
read in full at 120 columns, not cut at the screen's edge."""

from __future__ import annotations

import shutil

import pytest
from textual.widgets import DataTable

from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import row_at, settle


async def test_a_run_opened_as_dot_is_named_by_its_folder(tmp_path, monkeypatch):
    shutil.copytree(demo_run(), tmp_path / "my-run")
    monkeypatch.chdir(tmp_path / "my-run")
    app = create_app(DashboardConfig(run_dir="."))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("my-run · incomplete · lite/offline"), app.sub_title
    app = create_app(DashboardConfig(run_dir="../my-run"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("../my-run · "), app.sub_title  # a path that names its folder stays as typed


async def test_a_long_diagnostics_message_is_read_in_full_at_120_columns(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(demo_run(), run)
    lines = (run / "attempts.csv").read_text().splitlines(keepends=True)
    cells = lines[1].split(",")
    assert cells[1] == "theorem" and cells[4] == "1"
    cells[4] = "0.5"  # partial credit: the longest message of the rules
    lines[1] = ",".join(cells)
    (run / "attempts.csv").write_text("".join(lines))
    app = create_app(DashboardConfig(run_dir=str(run)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.query_one("#diagnostics-table", DataTable)
        message = row_at(table, 0)[3]
        expected = "a theorem score is 1 (complete proof accepted) or 0, got 0.5; partial credit must be converted to 0"
        assert "\n" in message and message.replace("\n", " ") == expected
        assert table.virtual_size.width <= table.size.width  # nothing to the right of the screen
        assert max(len(line) for line in message.split("\n")) < 120 - len("attempts.csv")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_run_status_and_the_models_not_complete_come_first_and_are_never_cut(size):
    """docs/dashboard.md#tabs: at 80 columns the status line and the header cut their end; what decides
    whether a run can be published, its status and the models that are not complete, comes first. The
    demo has one provisional and one incomplete model (its cohort and attempts.csv)."""
    from tests.support.dashboard import screen_lines

    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        lines = screen_lines(app)
        summary = next(line for line in lines if "DEMO · " in line and "tcsexam" not in line)
        assert summary.strip().startswith("DEMO · Run incomplete (1 provisional, 1 incomplete) · "), summary
        header = lines[0]
        assert "· incomplete ·" in header or header.rstrip().endswith("· incomplete"), header
