"""Names never hide the numbers and are data on every pane (docs/dashboard.md#names): a run whose models are
named with a bidi override, a zero-width space and an escape sequence, markup, and 160 characters, driven at
80×24 and 200×50. Every text the Overview, Coverage, Compare and Leaderboard show is what the command line's
escape leaves unchanged (so no raw control, bidi or invisible character reaches the screen), the long name is
capped in the tables and given in full on the cursor line, and the Model column stays while the table
scrolls right. A construction score of 1e13 gives an index of about 10^14: the Overview draws it on a scale
that reaches it, in the gauge's few characters."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable, Static

from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig
from tcsexam.tui.views import NAME_WIDTH, middle_ellipsis, plain
from tests.support.dashboard import settle, wait_until
from tests.support.runs import Workspace, full_rows

pytestmark = pytest.mark.dashboard

LONG = "vendor/" + "L" + "o" * 140 + "ng-model-name-end"  # 160 characters
BIDI = "نموذج-عربي-\u202egnp.exe"
INVISIBLE = "c\u200bmini\x1b[31m"
MARKUP = "[bold]x[/bold]"
NAMES = [LONG, BIDI, INVISIBLE, MARKUP]


def hostile_workspace(root, huge: bool = False) -> Workspace:
    ws = Workspace(root)
    rows = []
    for k, name in enumerate(NAMES):
        scores = {"t1": 1, "t2": k % 2, "s1": 0.25 + 0.1 * k, "c1": 1e13 if huge and k == 0 else 1.2}
        rows += full_rows(name, scores)
    ws.write_rows(rows)
    ws.write_cohort(models={name: {"attempts_per_task": 1} for name in NAMES})
    return ws


def shown_texts(pane) -> list[str]:
    """Every cell, column label and line of text a pane holds."""
    out = []
    for table in pane.query(DataTable):
        out += [str(column.label) for column in table.ordered_columns]
        for i in range(table.row_count):
            out += [str(cell) for cell in table.get_row_at(i)]
    out += [str(static.render()) for static in pane.query(Static) if not isinstance(static, DataTable)]
    return out


def assert_safe(texts: list[str]) -> None:
    for shown in texts:
        assert escape_for_terminal(shown) == shown, repr(shown)  # nothing left that the escape would change
        assert "[bold]" not in shown or "x[/bold]" in shown  # markup shown as written, never applied


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_hostile_and_long_names_on_every_pane(tmp_path, size):
    ws = hostile_workspace(tmp_path)
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench), output=str(ws.out)))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        overview = app.main.query_one("#overview-table", DataTable)
        await wait_until(pilot, lambda: overview.row_count == len(NAMES), "the Overview's rows")
        names = {str(overview.get_row_at(i)[0]) for i in range(overview.row_count)}
        assert names == {middle_ellipsis(n) for n in NAMES}
        assert all(cell_len(n) <= NAME_WIDTH for n in names)  # the long name is capped ...
        capped = middle_ellipsis(LONG)
        assert capped.startswith("vendor/") and capped.endswith("name-end")
        assert overview.fixed_columns == 1  # ... and stays while the numbers scroll
        assert plain(BIDI) in names and "\\u202e" in plain(BIDI)
        overview.focus()
        overview.move_cursor(row=[str(overview.get_row_at(i)[0]) for i in range(len(NAMES))].index(capped))
        await pilot.pause()
        detail = str(app.main.query_one("#overview-detail", Static).render())
        assert detail.startswith(LONG)  # in full on the cursor line
        assert_safe(shown_texts(app.main.query_one("OverviewPane")))
        await pilot.press("right", "right", "right")  # scroll right: the names stay
        assert overview.scroll_x >= 0 and overview.fixed_columns == 1

        await pilot.press("2")
        await settle(pilot)
        coverage = app.main.query_one("CoveragePane")
        grid = app.main.query_one("#coverage-grid", DataTable)
        assert grid.fixed_columns == 1
        grid.focus()
        grid.move_cursor(row=0, column=1 + [c.key.value for c in grid.ordered_columns[1:]].index(LONG))
        await pilot.pause()
        assert str(app.main.query_one("#coverage-detail", Static).render()).startswith(LONG)
        assert_safe(shown_texts(coverage))

        await pilot.press("5")
        await settle(pilot)
        compare = app.main.query_one("ComparePane")
        await wait_until(pilot, lambda: compare.result is not None, "the Compare result")
        assert app.main.query_one("#compare-tasks", DataTable).fixed_columns == 1
        assert_safe(shown_texts(compare))

        await pilot.press("8")
        await settle(pilot)
        board = app.main.query_one("LeaderboardPane")
        tables = list(board.query(DataTable))
        assert tables and all(t.fixed_columns == 2 for t in tables)  # rank and model
        models = {str(tables[0].get_row_at(i)[1]) for i in range(tables[0].row_count)}
        assert all(cell_len(m) <= NAME_WIDTH + 2 for m in models)  # capped (+ " †" for a provisional row)
        tables[0].focus()
        await pilot.pause()
        assert_safe(shown_texts(board))


async def test_an_index_of_ten_to_the_fourteen_is_drawn_on_a_scale_that_reaches_it(tmp_path):
    ws = hostile_workspace(tmp_path, huge=True)
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench), output=str(ws.out)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.main.query_one("#overview-table", DataTable)
        await wait_until(pilot, lambda: table.row_count == len(NAMES), "the Overview's rows")
        header = str(table.ordered_columns[3].label)
        assert header.startswith("0") and "e+1" in header  # the scale reaches 10^14
        gauges = [str(table.get_row_at(i)[3]) for i in range(table.row_count)]
        assert gauges[0].rstrip(" ·").endswith("●")  # the largest index at the scale's end
        assert all(len(g) == len(header) for g in gauges)
