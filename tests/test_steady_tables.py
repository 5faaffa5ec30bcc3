"""The dashboard's DataTables keep their rendered lines across style updates only while the styles
they were rendered with are unchanged (tui/textual_ext/data_table.py): a new theme or a focus change shows."""

from __future__ import annotations

from tcsexam.tui.app import create_app
from tcsexam.tui.textual_ext.data_table import SteadyDataTable
from tests.support.dashboard import (
    clear_caches,
    clear_style_cache,
    rendered_cells,
    screen_lines,
    settle,
    wait_until,
)

SIZE = (120, 40)


def styles_of(table: SteadyDataTable, y: int) -> list:
    """The styles of the segments of line ``y`` as the table renders it now."""
    clear_style_cache(table)  # the widget-level cache: what is tested is the table's own caches
    return [segment.style for segment in table.render_line(y)]


def cells_of(strip) -> list[tuple[str, object]]:
    """A rendered line as (character, style) per character."""
    return [(c, segment.style) for segment in strip for c in segment.text]


async def focused_overview(app, pilot) -> tuple[SteadyDataTable, int]:
    """The loaded Overview table with the focus, rendered once; and the line of its cursor row."""
    await settle(pilot)
    table = app.main.query_one("#overview-table", SteadyDataTable)
    table.focus()
    await pilot.pause()
    table.render_lines(table.region.reset_offset)
    return table, 1 + table.cursor_row  # under the header


async def test_a_new_theme_renders_the_table_again():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.main.query_one("#overview-table", SteadyDataTable)
        before = styles_of(table, 2)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        table.render_lines(table.region.reset_offset)  # the signature check runs where rendering starts
        after = styles_of(table, 2)
        assert after != before  # not the cached lines of the old theme
        clear_caches(table)
        assert styles_of(table, 2) == after


async def test_the_cursor_row_follows_the_focus_and_a_tab_switch_keeps_the_lines():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        table, cursor_line = await focused_overview(app, pilot)
        focused = styles_of(table, cursor_line)
        await pilot.press("2")  # another tab: the table loses the focus and is hidden
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert app.focused is table
        table.render_lines(table.region.reset_offset)
        assert styles_of(table, cursor_line) == focused
        app.set_focus(None)
        await pilot.pause()
        table.render_lines(table.region.reset_offset)
        blurred = styles_of(table, cursor_line)
        clear_caches(table)
        assert styles_of(table, cursor_line) == blurred  # what a cold render gives without the focus
        assert blurred != focused  # the cursor is drawn differently without the focus


async def test_a_changed_style_of_the_cursor_alone_renders_the_table_again():
    """The table's own style and focus stay the same; only the CSS of its cursor changes (what the
    render caches are not keyed by): the cursor row must show the new colour."""
    from rich.color import Color

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        table, cursor_line = await focused_overview(app, pilot)
        assert Color.parse("#ff0000") not in {s.bgcolor for s in styles_of(table, cursor_line) if s}
        app.stylesheet.add_source(
            "#overview-table > .datatable--cursor { background: #ff0000; }", read_from=("test", "")
        )
        app.refresh_css(animate=False)
        await pilot.pause()
        await pilot.pause()
        table.render_lines(table.region.reset_offset)
        assert Color.parse("#ff0000") in {s.bgcolor for s in styles_of(table, cursor_line) if s}


async def test_only_the_columns_in_view_are_rendered_and_the_lines_are_datatables():
    """A wide grid renders the cells of the columns in view, and every line, at every horizontal
    scroll, is the one Textual's DataTable draws (text and styles)."""
    from textual.app import App
    from textual.containers import Horizontal
    from textual.widgets import DataTable

    class Twins(App):
        CSS = "DataTable { width: 1fr; height: 1fr; }"

        def compose(self):
            with Horizontal():
                yield SteadyDataTable(id="steady", cursor_type="cell")
                yield DataTable(id="plain", cursor_type="cell")

    app = Twins()
    async with app.run_test(size=(100, 20)) as pilot:
        tables = [app.query_one("#steady", SteadyDataTable), app.query_one("#plain", DataTable)]
        for table in tables:
            table.fixed_columns = 1
            table.add_column("task", key="task")
            for m in range(60):
                table.add_column(f"model-{m:02}", key=f"m{m}")
            for t in range(12):
                table.add_row(f"task-{t}", *(f"{(t * 7 + m) % 100 / 100:.2f}" for m in range(60)), key=f"t{t}")
            table.move_cursor(row=3, column=5)
        app.set_focus(None)  # both drawn alike: neither has the focus
        await pilot.pause()
        steady, plain = tables
        width = steady.size.width
        assert width == plain.size.width and steady.virtual_size.width > 5 * width
        clear_caches(steady)
        steady.render_lines(steady.region.reset_offset)
        first, last = steady._in_view
        assert first == 1 and 3 <= last - first <= 6  # ~9-column cells in a 50-column table, one fixed
        cached = rendered_cells(steady)
        rendered_columns = {key[1] for key in cached}
        assert len(rendered_columns) <= last - first + 1  # the columns in view and the fixed one
        for scroll in (0, 13, steady.max_scroll_x // 2, steady.max_scroll_x):
            for table in tables:
                table.scroll_to(x=scroll, animate=False, immediate=True)
            await pilot.pause()
            assert steady.scroll_x == plain.scroll_x == scroll
            steady.render_lines(steady.region.reset_offset)
            widths = steady.column_widths()
            fixed = sum(widths[: steady.fixed_columns])
            # a column the left edge cuts is blank: its tail would read as part of the fixed column's text
            blank = {
                x
                for start, end in steady.cut_columns(widths).values()
                if start > 0
                for x in range(fixed, fixed + end - start)
            }
            assert bool(blank) == (scroll == 13) or scroll not in (0, 13), scroll  # 10-cell columns: 13 cuts one
            for y in range(steady.size.height):
                mine, theirs = cells_of(steady.render_line(y)), cells_of(plain.render_line(y))
                assert len(mine) == len(theirs), (scroll, y)
                assert all(mine[x][0] == " " for x in blank), (scroll, y)
                # the same cells, text and style, but where a cell cut at the right edge ends with …
                differ = [m for x, (m, t) in enumerate(zip(mine, theirs, strict=True)) if m != t and x not in blank]
                assert [m for m in differ if m[0] != "…"] == [], (scroll, y)


async def test_rows_drawn_before_their_cells_were_measured_are_drawn_again_at_the_measured_widths():
    """A frame drawn between add_row and the table's idle (where DataTable measures the new cells) draws
    the rows at the columns' header widths. Once the cells are measured, the screen must show them at
    the new widths (Textual's DataTable keeps those lines when its size stays the same)."""
    from textual.app import App

    class One(App):
        CSS = "SteadyDataTable { height: 8; }"

        def compose(self):
            yield SteadyDataTable(id="steady")

    app = One()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(SteadyDataTable)
        await pilot.pause()
        a, _ = table.add_columns("A", "B")
        table.add_row("a much longer cell", "second")
        assert " a  s" in screen_lines(app)  # drawn before the idle: "A" one character wide
        await wait_until(
            pilot, lambda: table.columns[a].content_width == len("a much longer cell"), "the cells measured"
        )
        await pilot.pause()
        assert " a much longer cell  second" in screen_lines(app)


async def test_the_overview_drawn_before_its_idle_shows_whole_names_once_measured():
    """The same on the dashboard, where only part of the table is drawn again after the measuring (the
    cursor's row): every line must be drawn anew, not only the ones repainted. A loaded machine once left
    the Overview's names cut to five characters behind the run switcher."""
    from tcsexam.tui.panes.overview.pane import OverviewPane

    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.main.query_one(OverviewPane)
        table = app.main.query_one("#overview-table", SteadyDataTable)
        pane.show(pane.document, None)  # the table made again, and a frame drawn before its idle
        assert "  borea  provis  55.25 ± " in "\n".join(screen_lines(app))
        name = table.ordered_columns[0]
        await wait_until(pilot, lambda: name.content_width == len("borealis-8x22b"), "the names measured")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert " borealis-8x22b  provisional  55.25 ± 20.14 " in shown and " borea " not in shown


def test_every_table_of_the_dashboard_is_a_steady_one():
    """Textual's DataTable keeps lines drawn before its cells were measured (above): the dashboard makes
    its tables from SteadyDataTable (or a subclass), never from DataTable itself."""
    import re
    from pathlib import Path

    tui = Path(__file__).resolve().parents[1] / "tui"
    made = {
        f"{path.relative_to(tui)}:{n}"
        for path in tui.rglob("*.py")
        if path != tui / "textual_ext" / "data_table.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"(?<![A-Za-z_])DataTable\(", line) or re.search(r"class \w+\(DataTable\)", line)
    }
    assert made == set()


async def test_right_and_left_scroll_the_overview_by_whole_columns_and_no_tail_shows_beside_the_names():
    """At 80x24 the Overview is wider than the screen: each `right` brings the next column's left edge to
    the Model column, the last step shows the last column whole, and a column the left edge cuts is
    blank (no 'al' of 'provisional' after 'borealis-8x22b'); `left` goes back a column at a time."""
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table, _ = await focused_overview(app, pilot)
        labels = [str(column.label) for column in table.ordered_columns]
        model = table.column_widths()[0]

        def header() -> str:
            line = next(line for line in screen_lines(app) if line.lstrip().startswith("Model"))
            return line[model:]

        def row(name: str) -> str:
            line = next(line for line in screen_lines(app) if line.lstrip().startswith(name))
            return line[len("  " + name) : model]  # what follows the name inside the Model column

        seen = []
        for _ in range(len(labels)):
            await pilot.press("right")
            await pilot.pause()
            seen.append(header().strip().split("  ")[0])
            assert row("borealis-8x22b").strip() == "" and row("cirrus-mini").strip() == ""
        assert table.scroll_x == table.max_scroll_x
        starts = [label.split("  ")[0] for label in labels[2:]]  # the forest's label: "0      50     100"
        steps = [start for start in starts if start in seen]
        assert seen[: len(steps)] == steps == starts[: len(steps)] and len(steps) >= 4, seen  # a column at a time
        assert header().rstrip().endswith(labels[-1])  # the last column whole
        await pilot.press("left")
        await pilot.pause()
        assert table.scroll_x in table.column_edges() and table.scroll_x < table.max_scroll_x


async def test_a_reload_and_a_filter_keep_the_overviews_first_column_in_view(demo_copy):
    """Scrolled right to the tracks, `r` (as --watch's reloads) and a filter make the table again: the
    column that was first in view is first again, at its edge, not the start of the table."""
    from tcsexam.tui.state import DashboardConfig

    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=(80, 24)) as pilot:
        table, _ = await focused_overview(app, pilot)
        for _ in range(4):
            await pilot.press("right")
        await pilot.pause()
        first = str(table.ordered_columns[table.fixed_columns + 4].label)
        assert table.scroll_x == table.column_edges()[4]
        await pilot.press("r")
        await settle(pilot)
        await wait_until(pilot, lambda: table.scroll_x == table.column_edges()[4], "the scroll kept")
        assert str(table.ordered_columns[table.fixed_columns + 4].label) == first
        await pilot.press("slash", *"atlas")
        await wait_until(pilot, lambda: table.row_count == 1, "the filtered table")
        await wait_until(pilot, lambda: table.scroll_x == table.column_edges()[4], "the scroll kept by the filter")
