"""The Overview's forest plot uses the screen (docs/dashboard.md#tabs): the plot column takes the width the
other columns leave, so the table is as wide as the screen, and the models can be sorted by their 95%
interval's lower end."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, OptionList

from tcsexam.tui.app import create_app
from tcsexam.tui.screens.sort_picker import SortPicker
from tests.support.dashboard import row_at, settle, wait_until


@pytest.mark.parametrize("size", [(120, 40), (200, 50), (260, 50)])
async def test_the_plot_column_takes_the_free_width(size):
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        widths = [c.get_render_width(table) for c in table.ordered_columns]
        plot = widths[3]
        assert plot >= 17
        # the demo's other columns leave room at 200 and 260 columns: the plot fills it, no blank band is left
        if sum(widths) - plot + 17 < table.size.width:
            assert table.size.width - 4 <= sum(widths) <= table.size.width, (widths, table.size.width)


async def test_a_wider_screen_draws_a_wider_plot():
    plots = []
    for size in ((200, 50), (260, 50)):
        app = create_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            table = app.query_one("#overview-table", DataTable)
            plots.append(table.ordered_columns[3].get_render_width(table))
    assert plots[1] - plots[0] == 60  # every column but the plot keeps its width


async def test_a_resized_terminal_redraws_the_plot_at_its_new_free_width():
    """Started at 80 columns, then widened to 200 and narrowed to 120: the plot is as wide as a start at
    that size draws it (not the width of the first layout, which left a band at 200 or cut the tracks)."""

    def plot(app) -> int:
        table = app.query_one("#overview-table", DataTable)
        return table.ordered_columns[3].get_render_width(table) if table.ordered_columns else 0

    fresh = {}
    for size in ((200, 50), (120, 40)):
        async with create_app().run_test(size=size) as pilot:
            await settle(pilot)
            fresh[size] = plot(pilot.app)
    assert fresh[(200, 50)] > fresh[(120, 40)] > 0
    async with create_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for size in ((200, 50), (120, 40)):
            await pilot.resize_terminal(*size)
            await wait_until(pilot, lambda size=size: plot(pilot.app) == fresh[size], f"the plot's width at {size}")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_sort_picker_sorts_by_the_intervals_lower_end(size):
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        table.focus()
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, SortPicker), "the sort picker")
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels[-1].startswith("95% interval lower end"), labels
        options.highlighted = options.option_count - 1
        await pilot.press("enter")
        await settle(pilot)
        document = app.state.document
        # the lower ends from index.json's own intervals (ci.index.lo), highest first; no index last
        lows = {m: (v["ci"]["index"] or {}).get("lo") for m, v in document["models"].items() if v["index"] is not None}
        expected = sorted(lows, key=lambda m: -lows[m])
        shown = [row_at(table, i)[0] for i in range(table.row_count)]
        assert shown[: len(expected)] == expected
        assert table.cursor_row == 0
