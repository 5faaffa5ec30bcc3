"""Coverage uses its height (docs/dashboard.md#tabs): the grid takes what the issues do not use, so a run
of 55 tasks and no issues shows as many task rows as 200×50 holds, and at 80×24 the grid keeps rows beside the
issues."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import settle


@pytest.fixture(scope="module")
def run60(tmp_path_factory):
    from tests.bench.synth import write_run

    root = tmp_path_factory.mktemp("synth") / "run60"
    write_run(root, models=60, attempts=1, seed=1)
    return root


async def test_a_run_without_issues_gives_the_grid_the_height_at_200x50(run60):
    app = create_app(DashboardConfig(run_dir=str(run60)))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        issues = app.main.query_one("#issues-table", DataTable)
        assert issues.row_count == 0 and grid.row_count == 55  # the Full suite's tasks
        # no issues (their table is hidden): the grid has the rest, 41 of the 55 rows, where a grid capped at
        # 55% of the pane showed 21 above 19 blank lines
        shown = grid.scrollable_content_region.height - grid.header_height
        assert shown >= 40, (shown, grid.row_count)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_grid_and_the_issues_share_the_height(size):
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        issues = app.main.query_one("#issues-table", DataTable)
        assert issues.row_count >= 1  # the demo's issues
        assert grid.scrollable_content_region.height - grid.header_height >= 3
        assert issues.region.height >= 2  # the header and at least one issue
