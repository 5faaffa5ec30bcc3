"""Answers at a glance, at 80x24, 120x40 and 200x50 on a run of 60 models (docs/dashboard.md#tabs): the
Overview's one status line and its forest plot, one row per model on one scale; Coverage's compact grid
(50 or more models across 120 columns), its legend kept and a line giving an issue in full with its file."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import row_at, settle
from tests.support.runs import checked_rows

SIZES = {"80x24": (80, 24), "120x40": (120, 40), "200x50": (200, 50)}
MODELS = 60
INCOMPLETE = "m07"  # its t1 row left out: no index


def write_run(ws) -> None:
    """60 models m00 … m59, the later the stronger; INCOMPLETE lacks one planned attempt."""
    names = [f"m{i:02d}" for i in range(MODELS)]
    rows = []
    for i, name in enumerate(names):
        scores = {"t1": 1, "t2": int(i % 2), "c1": 0.02 * i, "o1": 0}
        rows += [r for r in checked_rows(name, scores) if not (name == INCOMPLETE and r["item"] == "t1")]
    ws.write_cohort(models={name: {"attempts_per_task": 1} for name in names})
    ws.write_checked_run(rows, models=names)  # solver scores checked by records: no warning before the issue


def text_of(app, selector: str) -> str:
    return str(app.main.query_one(selector, Static).render())


@pytest.mark.parametrize("size", SIZES)
async def test_the_overview_is_one_status_line_and_a_forest_plot_row_per_model(ws, size):
    write_run(ws)
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        summary = app.main.query_one("#overview-summary", Static)
        assert summary.size.height == 1  # one line, whatever the width
        line = text_of(app, "#overview-summary")
        assert line.startswith("Run ")  # the run's status first (docs/dashboard.md#tabs)
        assert " · No single leader: " in line or " · Leader" in line
        table = app.main.query_one("#overview-table", DataTable)
        header = [str(c.label) for c in table.ordered_columns]
        gauge_at = next(i for i, h in enumerate(header) if h.lstrip().startswith("0") and "100" in h)
        gauges = [row_at(table, i)[gauge_at] for i in range(table.row_count)]
        assert len(gauges) == MODELS  # one row of the plot per model
        ranked = [g for g in gauges if "●" in g]
        assert len(ranked) == MODELS - 1
        points = [g.index("●") for g in ranked]
        assert points == sorted(points, reverse=True) and points[0] > points[-1]  # the index order, spread out
        assert all(len(g) == len(header[gauge_at]) for g in gauges)  # on the header's scale
        assert gauges[-1].strip().startswith("○") and "incomplete" in gauges[-1]  # a marker and the reason
        assert row_at(table, table.row_count - 1)[0] == INCOMPLETE


@pytest.mark.parametrize("size", SIZES)
async def test_coverage_fits_many_models_keeps_its_legend_and_gives_an_issue_in_full(ws, size):
    write_run(ws)
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        first, last = grid.columns_in_view()
        if SIZES[size][0] >= 120:
            assert last - first >= 50  # 50 models or more across 120 columns
        assert last - first >= 25
        legend = app.main.query_one("#coverage-legend", Static)
        assert legend.region.height >= 1 and legend.region.y >= 0  # on screen, above the grid
        assert "complete" in text_of(app, "#coverage-legend")
        issue = text_of(app, "#issue-detail")
        assert INCOMPLETE in issue and "attempts.csv" in issue  # the issue in full and the file it is about


@pytest.mark.parametrize("size", SIZES)
async def test_the_header_keeps_the_runs_status_after_a_long_folder(tmp_path, size):
    """docs/dashboard.md#tabs: the header gives the run's status right after its folder, and a folder too
    long for the header keeps its start and end with … between, so that the status is never cut away (the
    suite after it may be)."""
    import shutil

    from tcsexam.scoring.pipeline.benchmark import demo_run
    from tests.support.dashboard import screen_lines

    run = tmp_path / "a-rather-long-folder-name-for-experiments" / "sweep-2026-12-01-all-models" / "run-final"
    shutil.copytree(demo_run(), run)
    app = create_app(DashboardConfig(run_dir=str(run)))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        header = screen_lines(app)[0]
        assert "run-final · incomplete" in header, header
        assert str(run) in header or "…" in header, header
