"""No number is cut into another number (docs/dashboard.md#terminal-sizes): a cell that the table's edge
cuts ends with … where its text goes on, or is not shown at all, in every table of every tab and of the
screens opened over them (the worst instances, tau2's simulations and reward), at 80, 120 and 200
columns, and when a table is scrolled right. Rank comes before "Uncertainty from" in the Overview.

What is checked is the line each table draws (its rendered strip), cell by cell: the part of a cell that
shows, when it holds a digit, is the whole cell's text, or ends (or, scrolled, starts) with …."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig
from tcsexam.tui.textual_ext.data_table import cut_line
from tests.support.dashboard import settle

TAU2 = Path(__file__).parent / "data" / "tau2" / "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json"


def shown_cells(table: DataTable) -> list[tuple[str, str]]:
    """(the cell's whole text, the part of it the table draws) of every visible cell of a table whose rows
    are one line high, read from the lines the table renders."""
    widths = [column.get_render_width(table) for column in table.ordered_columns]
    fixed = table.fixed_columns
    pinned = sum(widths[:fixed])
    scroll_x, scroll_y = int(table.scroll_x), int(table.scroll_y)
    out = []
    for y in range(table.header_height, table.size.height):
        row = y - table.header_height + scroll_y
        if row >= table.row_count:
            break
        line = table.render_line(y)
        values = [str(v) for v in table.get_row_at(row)]
        x = 0
        for i, (value, width) in enumerate(zip(values, widths, strict=True)):
            start = x if i < fixed else max(x - scroll_x, pinned)
            end = x + width if i < fixed else min(x + width - scroll_x, table.scrollable_content_region.width)
            x += width
            if start < end:
                out.append((value, line.crop(start, end).text))
    return out


def assert_no_number_cut(table: DataTable, where: str) -> int:
    if any(row.height != 1 for row in table.ordered_rows):
        return 0
    checked = 0
    for value, shown in shown_cells(table):
        part = shown.strip()
        if not any(c.isdigit() for c in value) or not part:
            continue
        checked += 1
        whole = value.strip()
        assert part == whole or part.endswith("…") or part.startswith("…"), (
            f"{where} #{table.id}: {whole!r} shown as {part!r}"
        )
    return checked


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
async def test_no_table_shows_a_number_cut_into_another(size):
    app = create_app(DashboardConfig(run_dir=str(demo_run()), tau2=str(TAU2) if TAU2.is_file() else None))
    checked = 0
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        # every tab, then the tables of the screens opened over them: the worst instances (w), a tau2 task's
        # simulations and one simulation's reward breakdown (6, then enter twice)
        for keys in ("1", "2", "3", "4", "5", "6", "7", "8", "1w", "6", "enter", "enter"):
            await pilot.press(*(keys if keys != "enter" else [keys]))
            await settle(pilot)
            for table in app.screen.query(DataTable):
                if table.display and table.region.width:
                    checked += assert_no_number_cut(table, f"{keys} at {size}")
            if keys == "1w":
                await pilot.press("escape")
                await settle(pilot)
        await pilot.press("escape", "escape")
        await pilot.press("1")
        await settle(pilot)
        overview = app.query_one("#overview-table", DataTable)
        overview.focus()
        for _ in range(7):  # scrolled right: the columns the left edge cuts
            await pilot.press("right")
            await pilot.pause()
            checked += assert_no_number_cut(overview, f"the Overview scrolled at {size}")
    assert checked > 50  # the tables' numbers were seen


@pytest.fixture(scope="module")
def run60(tmp_path_factory) -> Path:
    """60 models (a vertical scrollbar beside the Overview's rows)."""
    from tests.bench.synth import write_run

    root = tmp_path_factory.mktemp("synth") / "run60"
    write_run(root, models=60, attempts=1, seed=1)
    return root


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_no_number_is_cut_beside_a_vertical_scrollbar(run60, size):
    app = create_app(DashboardConfig(run_dir=str(run60)))
    checked = 0
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for tab in "125":
            await pilot.press(tab)
            await settle(pilot)
            for table in app.screen.query(DataTable):
                if table.display and table.region.width:
                    checked += assert_no_number_cut(table, f"tab {tab} at {size}")
    assert checked > 50


async def test_rank_comes_before_the_uncertainty_shares_and_shows_whole_at_80_columns():
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        labels = [str(c.label).split(" ")[0] for c in table.ordered_columns]
        assert labels.index("Rank") < labels.index("Uncertainty")
        shown = dict(shown_cells(table))
        assert shown["1–2"].strip() == "1–2"  # the demo's two complete models share ranks 1–2


def test_a_cut_cell_ends_with_an_ellipsis_where_its_text_goes_on():
    from rich.segment import Segment

    line = [Segment("  1–22 ")]  # a cell of 7: padding, the rank, padding
    # 4 cells show: "  1–" would be read as 1–2 (the cells past the edge are never drawn)
    assert "".join(s.text for s in cut_line(line, 7, 0, 4))[:4] == "  1…"
    assert "".join(s.text for s in cut_line(line, 7, 0, 6)) == "  1–22 "  # only the padding is cut
    assert "".join(s.text for s in cut_line(line, 7, 4, 7))[4:] == "…2 "  # the left edge cuts "  1–"
    assert "".join(s.text for s in cut_line([Segment("       ")], 7, 0, 3)) == "       "


def instance_cells(table) -> list[tuple[str, str]]:
    """(the cell's whole text, the part of it the Instances table draws) of every visible cell that the
    screen shows, read from the lines the table renders (its rows are text, not a DataTable's)."""
    from tcsexam.tui.panes.instances.table import format_row

    width, start = table.scrollable_content_region.width, int(table.scroll_offset.x)
    out = []
    for y in range(min(table.size.height, len(table.order) - int(table.scroll_offset.y))):
        text = format_row(table.cols, int(table.order[int(table.scroll_offset.y) + y]), table.widths)
        line = table.render_line(y).text
        x = 0
        for w in table.widths:
            a, b = max(x, start), min(x + w, start + width)
            if a < b:
                out.append((text[x : x + w], line[a - start : b - start]))
            x += w + 1
    return out


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
async def test_no_instance_number_is_cut_into_another(run60, size):
    """The Instances table draws its own lines: a cell the screen's edge cuts ends with … there too (at 80
    columns the Phi column of an attempt with a 'timeout' row is one character short: 0.97 for 0.979)."""
    from tcsexam.tui.panes.instances.table import InstanceTable

    app = create_app(DashboardConfig(run_dir=str(run60)))
    checked = 0
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        table = app.query_one(InstanceTable)
        table.focus()
        for step in range(4):  # then scrolled right: the cells the left edge cuts
            for whole, shown in instance_cells(table):
                part, value = shown.strip(), whole.strip()
                if any(c.isdigit() for c in value) and part:
                    checked += 1
                    assert part == value or part.endswith("…") or part.startswith("…"), (step, value, part)
            table.scroll_to(x=table.scroll_offset.x + 3, animate=False)
            await pilot.pause()
    assert checked > 50


async def test_at_80_columns_z_and_phi_show_whole_and_a_long_status_is_cut_instead(tmp_path):
    """A 'certificate_failed' row widened the status column to 18: at 80 columns z was cut and Phi
    was off screen. A line too wide for the table now cuts the status column, then the name column,
    to 8 (the line under the table spells the status out)."""
    import json
    import shutil

    from tcsexam.scoring.commands.main import main as cli
    from tcsexam.tui.panes.instances.table import COLUMNS, InstanceTable

    run = tmp_path / "run"
    shutil.copytree(demo_run(), run)
    records = run / "records/atlas-70b/maxcut-mqlib/1.json"
    rows = json.loads(records.read_text())
    rows[1] = {"instance": rows[1]["instance"], "status": "certificate_failed"}
    records.write_text(json.dumps(rows))
    assert cli(["fill", str(run), "--overwrite"]) == 0  # the attempt's score follows its records
    app = create_app(DashboardConfig(run_dir=str(run)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        table = app.query_one(InstanceTable)
        assert table.cols is not None and table.cols.task == "maxcut-mqlib"
        cells = instance_cells(table)
        per_row = len(COLUMNS)
        assert len(cells) >= 5 * per_row  # every column of each row shown, none off screen
        rows_shown = [cells[i : i + per_row] for i in range(0, len(cells), per_row)]
        for row in rows_shown:
            for whole, shown in row[-2:]:  # z and Phi
                assert shown == whole, row
        assert any(row[1][1].strip() == "certifi…" for row in rows_shown)
        assert sum(table.widths) + len(table.widths) - 1 <= table.scrollable_content_region.width


async def test_opening_the_overview_filter_keeps_the_cursor_row_in_view(run60):
    """`G` then `/` on 60 models: the filter bar took a line from the table and its last visible row, the
    cursor's, went out of view while the line under the table still named it (a review in tmux). A new
    size keeps a table's cursor in view (every table of the dashboard: tui/textual_ext/data_table.py)."""
    app = create_app(DashboardConfig(run_dir=str(run60)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        table.focus()
        for _ in range(60):  # down to the last row in view, then one more screen: the cursor on the bottom line
            if (
                table.cursor_row - int(table.scroll_y)
                >= table.scrollable_content_region.height - table.header_height - 1
            ):
                break
            await pilot.press("down")
        await pilot.pause()
        bottom = table.cursor_row
        assert bottom > 5
        await pilot.press("slash")
        await settle(pilot)
        shown = range(
            int(table.scroll_y), int(table.scroll_y) + table.scrollable_content_region.height - table.header_height
        )
        assert table.cursor_row == bottom and bottom in shown, (bottom, shown)


async def test_a_table_scrolled_away_from_its_cursor_keeps_its_scroll_over_tab_switches(run60):
    """A maintainer's review: with a resize bringing the cursor back on every Resize, a scroll of the mouse
    wheel (the cursor left on row 0) was undone by pressing 4 then 1, the tab shown again getting a
    Resize of its own size. Only a table that gets shorter brings back a cursor that was in view."""
    app = create_app(DashboardConfig(run_dir=str(run60)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        table.scroll_to(y=30, animate=False, immediate=True)
        await pilot.pause()
        assert table.cursor_row == 0 and int(table.scroll_y) == 30
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert int(table.scroll_y) == 30
        await pilot.resize_terminal(100, 31)  # taller: nothing to bring back
        await settle(pilot)
        assert int(table.scroll_y) == 30
