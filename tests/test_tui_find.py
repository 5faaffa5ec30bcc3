"""Find and order in the dashboard (docs/dashboard.md#find-and-order): `/` filters every table by name
and status, typed as fast as a paste; `s` sorts through a picker and puts the cursor on the first row; a
reload keeps the cursor on its model; `w` lists a model's worst instances and Enter opens one in
Instances; Compare's B starts as A's neighbour in the Overview's order. On the demo, on a 60-model run
with records and on a 2,000-model run, at 80×24 and 200×50."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static

from tcsexam.tui.app import create_app
from tcsexam.tui.panes.compare.pane import ComparePane
from tcsexam.tui.panes.instances.pane import InstancesPane
from tcsexam.tui.panes.instances.table import InstanceTable
from tcsexam.tui.panes.overview.worst import WorstScreen
from tcsexam.tui.screens.sort_picker import SortPicker
from tcsexam.tui.state import STATUS_CODES, DashboardConfig
from tcsexam.tui.widgets.filter_bar import FilterBar
from tests.support.dashboard import burst, notifications, row_at, screen_lines, settle, wait_until

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}
TAU2 = Path(__file__).resolve().parent / "data" / "tau2" / "derived" / "derived_C_edge_4x5.json"


def rows(table: DataTable, column: int = 0) -> list[str]:
    return [row_at(table, i)[column] for i in range(table.row_count)]


def cursor_key(table: DataTable):
    return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value


def bar_count(app, selector: str) -> str:
    return str(app.main.query_one(f"{selector} .filter-count", Static).render())


def bar_hint(app, selector: str) -> str:
    """The line under the filter bar's count (empty when hidden)."""
    hint = app.main.query_one(f"{selector} .filter-hint", Static)
    return str(hint.render()) if hint.display else ""


async def overview(pilot) -> DataTable:
    await settle(pilot)
    table = pilot.app.main.query_one("#overview-table", DataTable)
    table.focus()
    await pilot.pause()
    return table


# --- `/` in the Overview -------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_slash_filters_the_overview_by_name_and_by_status(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        table = await overview(pilot)
        models = app.state.document["models"]
        burst(app, "/BOR")
        await wait_until(pilot, lambda: rows(table) == ["borealis-8x22b"], lambda: f"rows {rows(table)}")
        assert bar_count(app, "#overview-filter") == "1 of 3 models"
        assert app.selected_model == "borealis-8x22b"  # the cursor on the only row left selects it
        await pilot.press("escape")  # clears the filter, the table takes the keyboard again
        await wait_until(pilot, lambda: table.row_count == 3, "every model back")
        assert app.focused is table and not app.main.query_one(FilterBar).has_class("-open")
        burst(app, "/status:inc")
        incomplete = [m for m, v in models.items() if v["status"] == "incomplete"]
        assert incomplete  # the demo has one
        await wait_until(pilot, lambda: rows(table) == incomplete, lambda: f"rows {rows(table)}")
        await pilot.press("enter")  # keeps the filter; the table has the keyboard
        await pilot.pause()
        assert app.focused is table and rows(table) == incomplete
        assert bar_count(app, "#overview-filter") == f"{len(incomplete)} of 3 models"
        assert app.main.query_one(FilterBar).has_class("-open")  # shown while a filter is on


@pytest.mark.parametrize("size", SIZES)
async def test_escape_on_the_table_clears_a_filter_kept_with_enter_on_every_pane(size):
    """The help's `esc  Clear filter` holds once Enter has given the keyboard back to the table, in each
    pane with a filter bar: the filter gone, the bar hidden, the table's rows back; with no filter on,
    escape is not offered."""
    panes = {"1": "#overview-filter", "2": "#coverage-filter", "5": "#compare-filter", "8": "#leaderboard-filter"}
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for key, selector in panes.items():
            await pilot.press(key)
            tab = selector.removeprefix("#").removesuffix("-filter")
            await wait_until(pilot, lambda tab=tab: app.main.query_one("TabbedContent").active == tab, f"the tab {tab}")
            await settle(pilot)
            bar = app.main.query_one(selector, FilterBar)
            pane = bar.parent
            assert pane.check_action("clear_filter", ()) is False, selector  # nothing to clear: not offered
            counted = bar.query_one(".filter-count", Static)
            burst(app, "/cirrus")
            await pilot.press("enter")
            await wait_until(pilot, lambda bar=bar: bar.applied == "cirrus", f"the filter of {selector} kept")
            await settle(pilot)
            assert not isinstance(app.focused, Input) and bar.has_class("-open"), selector
            assert str(counted.render()).startswith("1 of 3 "), selector  # the filter holds models back
            await pilot.press("escape")
            await wait_until(pilot, lambda bar=bar: bar.applied == "", f"the filter of {selector} cleared")
            await settle(pilot)
            assert not bar.has_class("-open") and not isinstance(app.focused, Input), selector
            assert str(counted.render()) in ("", "3 of 3 models", "3 of 3 models in the pickers", "3 of 3 rows"), (
                selector
            )


@pytest.mark.parametrize("size", SIZES)
async def test_a_reload_keeps_the_cursor_on_its_model_and_the_filter(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        table = await overview(pilot)
        await pilot.press("down")
        await pilot.pause()
        chosen = cursor_key(table)
        assert table.cursor_row == 1
        await pilot.press("r")
        await settle(pilot)
        await wait_until(pilot, lambda: cursor_key(table) == chosen, "the cursor on its model after the reload")
        burst(app, "/-")
        await wait_until(pilot, lambda: app.main.query_one(FilterBar).applied == "-", "the filter applied")
        await pilot.press("enter")
        shown = rows(table)
        table.move_cursor(row=shown.index("cirrus-mini"))
        await pilot.pause()
        await pilot.press("r")
        await settle(pilot)
        await wait_until(pilot, lambda: cursor_key(table) == "cirrus-mini", "the cursor on its model")
        assert rows(table) == shown and app.main.query_one(FilterBar).applied == "-"


def write_ranked_models(ws, n: int, incomplete: str | None = None) -> None:
    """n models m00 … m(n-1), the later the stronger; ``incomplete``'s t1 row left out (no index)."""
    from tests.support.runs import full_rows

    names = [f"m{i:02d}" for i in range(n)]
    rows = []
    for i, name in enumerate(names):
        scores = {"t1": 1, "t2": int(i % 2), "s1": 0.01 * i, "s2": 0.5, "c1": 0.02 * i, "o1": 0}
        rows += [r for r in full_rows(name, scores) if not (name == incomplete and r["item"] == "t1")]
    ws.write_rows(rows)
    ws.write_cohort(models={name: {"attempts_per_task": 1} for name in names})


@pytest.mark.parametrize("size", SIZES)
async def test_a_reload_that_moves_the_model_keeps_the_cursor_on_it_and_in_view(ws, size):
    """The selected model becomes incomplete on disk: after the reload its row is the last (no index);
    the cursor follows it there and the view shows it."""
    write_ranked_models(ws, 40)
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=SIZES[size]) as pilot:
        table = await overview(pilot)
        assert rows(table)[0] == "m39"
        table.move_cursor(row=rows(table).index("m30"))
        await wait_until(pilot, lambda: app.selected_model == "m30", "m30 selected")
        write_ranked_models(ws, 40, incomplete="m30")
        await pilot.press("r")
        await wait_until(
            pilot, lambda: app.state.document["models"]["m30"]["status"] == "incomplete", "the reload read"
        )
        await settle(pilot)
        assert rows(table)[-1] == "m30"  # no index: sorted last
        assert cursor_key(table) == "m30" == app.selected_model
        height = table.scrollable_content_region.height
        assert table.scroll_y <= table.cursor_row < table.scroll_y + height


# --- `s`: the sort picker -------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_the_sort_picker_sorts_by_the_column_chosen_and_puts_the_cursor_on_row_one(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        table = await overview(pilot)
        await pilot.press("down", "down")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, SortPicker), "the sort picker")
        await pilot.press("home", "enter")  # the first column: Model
        await wait_until(pilot, lambda: not isinstance(app.screen, SortPicker), "the picker closed")
        await pilot.pause()
        names = sorted(app.state.document["models"])
        assert rows(table) == names and table.cursor_row == 0
        await pilot.press("S")
        await pilot.pause()
        assert rows(table) == names[::-1] and table.cursor_row == 0
        await pilot.press("down", "s")  # the current column again: reversed
        await wait_until(pilot, lambda: isinstance(app.screen, SortPicker), "the sort picker")
        await pilot.press("home", "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, SortPicker), "the picker closed")
        await pilot.pause()
        assert rows(table) == names and table.cursor_row == 0


@pytest.mark.parametrize("size", SIZES)
async def test_an_explicit_sort_of_the_instances_puts_the_cursor_on_row_one(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        pane = app.main.query_one(InstancesPane)
        table = app.main.query_one(InstanceTable)
        table.focus()
        await pilot.press(*["down"] * 8)
        assert table.cursor == 8
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, SortPicker), "the sort picker")
        await pilot.press("end", "enter")  # the last column: phi, ascending (the failures first)
        await settle(pilot)
        assert app.main.query_one("#instances-sort", Select).value == "phi:0"
        assert table.cursor == 0 and table.scroll_offset.y == 0
        phi = pane.columns.phi[table.order]
        assert phi[0] == phi.min()


@pytest.mark.skipif(not TAU2.is_file(), reason="tests/data/tau2 is missing")
@pytest.mark.parametrize("size", SIZES)
async def test_the_sort_picker_sorts_the_tau2_tasks_and_puts_the_cursor_on_row_one(size):
    app = create_app(DashboardConfig(tau2=str(TAU2)))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        tasks = app.main.query_one("#tau2-tasks", DataTable)
        tasks.focus()
        await pilot.press("down", "down")
        assert tasks.cursor_row == 2
        rewards = {str(t["task_id"]): t["avg_reward"] for t in app.tau2_metrics["tasks"]}
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, SortPicker), "the sort picker")
        headers = [str(c.label).split(" ")[0] for c in tasks.ordered_columns]
        await pilot.press("home", *["down"] * headers.index("avg"), "enter")  # avg reward, low first
        await wait_until(pilot, lambda: not isinstance(app.screen, SortPicker), "the picker closed")
        await pilot.pause()
        shown = [rewards[key.value] for key in tasks.rows]
        assert shown == sorted(rewards.values()) and shown[0] < shown[-1]
        assert tasks.cursor_row == 0 and tasks.scroll_y == 0


# --- `w`: where does the model fail ---------------------------------------------------------------


def worst_oracle(state, model: str) -> list[tuple[str, str, str, float]]:
    """Every instance of the model's re-scored attempts, sorted here by Phi, task, attempt, position."""
    out = []
    for (m, item, attempt), cols in state.columns.items():
        if m == model:
            for i in range(len(cols)):
                out.append((float(cols.phi[i]), item, attempt, i, cols.name(i)))
    out.sort()
    return [(item, attempt, name, phi) for phi, item, attempt, _, name in out]


async def open_worst(pilot, model: str) -> WorstScreen:
    app = pilot.app
    table = await overview(pilot)
    table.move_cursor(row=table.get_row_index(model))
    await pilot.pause()
    await pilot.press("w")
    await wait_until(pilot, lambda: isinstance(app.screen, WorstScreen), "the worst instances")
    await pilot.pause()
    return app.screen


async def enter_on_worst_row(pilot, screen: WorstScreen, row: int) -> tuple[str, str, str]:
    chosen = screen.rows[row]
    table = screen.query_one(DataTable)
    table.move_cursor(row=row)
    await pilot.press("enter")
    await settle(pilot)
    return chosen.item, chosen.attempt, chosen.instance


async def in_instances(pilot, model: str, target: tuple[str, str, str]) -> None:
    """Instances shows the target's task and attempt, the cursor on its instance and in view."""
    app = pilot.app
    pane = app.main.query_one(InstancesPane)
    table = app.main.query_one(InstanceTable)

    def there() -> bool:
        return (
            pane.key == (model, target[0], target[1])
            and pane.columns is not None
            and table.current_row() is not None
            and pane.columns.name(table.current_row()) == target[2]
        )

    await wait_until(pilot, there, lambda: f"Instances shows {pane.key}, row {table.cursor}")
    await pilot.pause()
    assert app.main.query_one("TabbedContent").active == "instances"
    assert app.main.query_one("#instances-task", Select).value == target[0]
    assert app.main.query_one("#instances-attempt", Select).value == target[1]
    height = table.scrollable_content_region.height
    assert table.scroll_offset.y <= table.cursor < table.scroll_offset.y + height  # on screen


@pytest.mark.parametrize("size", SIZES)
async def test_w_lists_the_worst_instances_across_tasks_and_enter_opens_one(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        model = "borealis-8x22b"
        screen = await open_worst(pilot, model)
        expected = worst_oracle(app.state, model)
        table = screen.query_one(DataTable)
        shown = [(r[0], r[1], r[2], float(r[3])) for r in (row_at(table, i) for i in range(table.row_count))]
        assert [s[:3] for s in shown] == [e[:3] for e in expected]
        assert all(math.isclose(s[3], round(e[3], 3), abs_tol=1e-9) for s, e in zip(shown, expected, strict=True))
        assert len({item for item, *_ in shown}) > 1  # across the solver tasks
        assert {row_at(table, i)[5] for i in range(table.row_count)} <= set(STATUS_CODES)
        # a row of a task other than the one Instances opens first, far down its list by name
        first_task = app.state.solver_items()[0]
        row = next(i for i, r in enumerate(screen.rows) if r.item != first_task and r.instance[-2:] > "10")
        target = await enter_on_worst_row(pilot, screen, row)
        await in_instances(pilot, model, target)


async def test_w_on_a_60_model_run_opens_the_worst_instance_of_a_model_of_three_attempts(tmp_path):
    from tests.bench.synth import write_run

    write_run(tmp_path / "run60", models=60, attempts=3, seed=1)
    app = create_app(DashboardConfig(run_dir=str(tmp_path / "run60")))
    async with app.run_test(size=SIZES["200x50"]) as pilot:
        await settle(pilot)
        model = sorted(app.state.document["models"])[7]
        screen = await open_worst(pilot, model)
        expected = worst_oracle(app.state, model)
        assert [r.instance for r in screen.rows] == [e[2] for e in expected[: len(screen.rows)]]
        assert len({r.attempt for r in screen.rows}) > 1
        row = next(i for i, r in enumerate(screen.rows) if r.attempt != "1")
        target = await enter_on_worst_row(pilot, screen, row)
        await in_instances(pilot, model, target)


async def test_w_without_records_says_why_there_is_nothing_to_list(tmp_path):
    from tests.bench.synth import write_cohort

    made = write_cohort(tmp_path, models=12)
    app = create_app(DashboardConfig(run_dir=made["run"], benchmark=made["benchmark"]))
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await overview(pilot)
        await pilot.press("w")
        await wait_until(
            pilot,
            lambda: any("re-scored from records" in m for m in notifications(app)),
            "the notification",
        )
        assert not isinstance(app.screen, WorstScreen)


# --- Compare: B next to A, pickers narrowed by typed text ----------------------------------------


def pair(app) -> tuple:
    return (app.main.query_one("#compare-a", Select).value, app.main.query_one("#compare-b", Select).value)


@pytest.mark.parametrize("size", SIZES)
async def test_compare_b_is_the_model_next_to_a_in_the_overviews_order(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        table = await overview(pilot)
        order = rows(table)
        assert pair(app) == (order[0], order[1])
        table.move_cursor(row=1)
        await wait_until(pilot, lambda: pair(app) == (order[1], order[2]), lambda: f"the pair {pair(app)}")
        table.move_cursor(row=2)  # the last model: B is the one above it
        await wait_until(pilot, lambda: pair(app) == (order[2], order[1]), lambda: f"the pair {pair(app)}")
        await pilot.press("5")
        await settle(pilot)
        app.main.query_one("#compare-b", Select).value = order[0]  # picked: B stays
        await settle(pilot)
        await pilot.press("1")
        table.focus()
        table.move_cursor(row=1)
        await wait_until(pilot, lambda: pair(app) == (order[1], order[0]), lambda: f"the pair {pair(app)}")


@pytest.mark.parametrize("size", SIZES)
async def test_compare_of_60_models_starts_with_the_runner_up_and_typed_text_narrows_the_pickers(tmp_path, size):
    from tests.bench.synth import write_run

    write_run(tmp_path / "run60", models=60, attempts=1, seed=1)
    app = create_app(DashboardConfig(run_dir=str(tmp_path / "run60")))
    async with app.run_test(size=SIZES[size]) as pilot:
        table = await overview(pilot)
        order = rows(table)
        assert pair(app) == (order[0], order[1]) and order[1] != sorted(order)[0]
        await pilot.press("5")
        await settle(pilot)
        wanted = order[30]
        burst(app, "/" + wanted[-3:])
        pane = app.main.query_one(ComparePane)
        await wait_until(pilot, lambda: pane.query_one(FilterBar).applied == wanted[-3:], "the filter applied")
        offered = pane._offered["compare-b"]
        assert wanted in offered and set(offered) <= {*order[:2], *[m for m in order if wanted[-3:] in m]}
        assert bar_count(app, "#compare-filter").endswith("of 60 models in the pickers")
        app.main.query_one("#compare-b", Select).value = wanted
        await settle(pilot)
        assert pair(app) == (order[0], wanted)


# --- the other tables ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_slash_filters_coverage_models_and_issues(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        issues = app.main.query_one("#issues-table", DataTable)
        every = rows(issues)
        burst(app, "/cirrus")
        await wait_until(pilot, lambda: len(grid.columns) == 2, lambda: f"{len(grid.columns)} columns")
        assert [str(c.label) for c in grid.columns.values()][1] == "cirrus-mini"
        assert set(rows(issues)) == {"cirrus-mini"} and len(every) > issues.row_count
        assert bar_count(app, "#coverage-filter") == "1 of 3 models"


@pytest.mark.parametrize("size", SIZES)
async def test_slash_filters_the_leaderboard_rows(size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("8")
        await settle(pilot)
        burst(app, "/status:complete")
        complete = [m for m, v in app.state.document["models"].items() if v["status"] == "complete"]

        def models() -> list[str]:
            return [
                row_at(t, i)[1]
                for t in app.main.query(".leaderboard-table").results(DataTable)
                for i in range(t.row_count)
            ]

        await wait_until(pilot, lambda: models() == complete, lambda: f"rows {models()}")
        assert bar_count(app, "#leaderboard-filter") == f"{len(complete)} of 3 rows"


@pytest.mark.skipif(not TAU2.is_file(), reason="tests/data/tau2 is missing")
@pytest.mark.parametrize("size", SIZES)
async def test_slash_filters_the_tau2_tasks_by_id_and_termination_reason(size):
    import json

    app = create_app(DashboardConfig(tau2=str(TAU2)))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        tasks = app.main.query_one("#tau2-tasks", DataTable)
        metrics = app.tau2_metrics
        reason = sorted({r for t in metrics["tasks"] for r in t["termination_reasons"]})[-1]
        with_reason = [str(t["task_id"]) for t in metrics["tasks"] if reason in t["termination_reasons"]]
        assert 0 < len(with_reason) < len(metrics["tasks"]), json.dumps(metrics["tasks"])[:300]
        tasks.focus()
        burst(app, f"/status:{reason}")

        def ids() -> list[str]:
            return sorted(key.value for key in tasks.rows)

        await wait_until(pilot, lambda: ids() == sorted(with_reason), lambda: f"rows {ids()}")
        assert bar_count(app, "#tau2-filter") == f"{len(with_reason)} of {len(metrics['tasks'])} tasks"
        # a filter that leaves no task: the line under the table names none (it kept the last one highlighted)
        detail = app.main.query_one("#tau2-task-detail", Static)
        assert str(detail.render()).startswith("task ")
        burst(app, "zzz")
        await wait_until(pilot, lambda: not tasks.row_count, "no row left")
        await settle(pilot)
        assert str(detail.render()) == ""
        # the count beside the line, and under it why, naming the statuses there are: whole at every size
        # (the list was once cut with "…" at 80 and 120 columns)
        lines = screen_lines(app)
        (line,) = [line.rstrip() for line in lines if "0 of 5 tasks" in line]
        assert line.endswith("0 of 5 tasks") and "no status" not in line
        screen = " ".join(" ".join(line.split()) for line in lines)  # wrapped lines joined back
        hint = re.search(r"no status starts with \S+zzz \(statuses: ([^)]*)\)", screen)
        assert hint is not None, screen
        reasons = {r for t in metrics["tasks"] for r in t["termination_reasons"]}
        assert set(hint.group(1).split(", ")) == reasons


# --- 2,000 models: a burst of keys, one answer -----------------------------------------------------


async def test_a_filter_typed_fast_over_2000_models(tmp_path):
    from tests.bench.synth import write_cohort

    made = write_cohort(tmp_path, models=2000)
    app = create_app(DashboardConfig(run_dir=made["run"], benchmark=made["benchmark"]))
    async with app.run_test(size=SIZES["200x50"]) as pilot:
        table = await overview(pilot)
        await wait_until(
            pilot,
            lambda: table.row_count == 2000 and pilot.app.main.query_one("#overview-table").row_count == 2000,
            "every row",
        )
        burst(app, "/model-0012")
        wanted = {m for m in app.state.document["models"] if "model-0012" in m}
        assert len(wanted) == 100
        bar = app.main.query_one("#overview-filter", FilterBar)
        typed = app.main.query_one("#overview-filter Input", Input)
        stale: list[tuple[str, str, int]] = []  # a count shown beside text that the rows do not match yet

        def matched() -> bool:
            shown = set(rows(table))
            now = shown == {m for m in app.state.document["models"] if typed.value.lower() in m.lower()}
            if bar.display and not now and bar_count(app, "#overview-filter") != "filtering…":
                stale.append((typed.value, bar_count(app, "#overview-filter"), len(shown)))
            return shown == wanted

        await wait_until(pilot, matched, lambda: f"{table.row_count} rows")
        assert not stale, stale[:3]  # until the rows match the text, the count says "filtering…"
        assert app.main.query_one("#overview-filter Input", Input).value == "model-0012"
        assert bar_count(app, "#overview-filter") == "100 of 2,000 models"
        assert bar.applied == "model-0012"
        await pilot.press("escape")
        await wait_until(pilot, lambda: table.row_count == 2000, lambda: f"{table.row_count} rows")


@pytest.mark.parametrize("size", SIZES)
async def test_the_worst_list_counts_its_failures_per_status(size):
    """docs/dashboard.md#find-and-order: above the worst instances, how many of them failed by each status,
    most first ("2 crash · 1 timeout"), then how many were scored, counted here from the model's own
    re-scored instances (the demo's borealis-8x22b has fewer than 500: all are listed)."""
    from collections import Counter

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        model = "borealis-8x22b"
        screen = await open_worst(pilot, model)
        statuses = Counter(
            STATUS_CODES[int(cols.status[i])]
            for (m, _, _), cols in app.state.columns.items()
            if m == model
            for i in range(len(cols))
        )
        assert len(screen.rows) == sum(statuses.values())
        failures = sorted(((n, s) for s, n in statuses.items() if s != "ok"), key=lambda ns: (-ns[0], ns[1]))
        assert failures  # the demo's records hold solver failures
        expected = " · ".join(f"{n:,} {s}" for n, s in failures) + f"; {statuses['ok']:,} scored"
        shown = str(screen.query_one("#worst-counts").render())
        assert shown == f"Listed: {expected}"


@pytest.mark.parametrize("size", SIZES)
async def test_the_count_says_filtering_until_the_rows_match_the_typed_text(size, monkeypatch):
    """docs/dashboard.md#find-and-order: between a key typed in the filter and the filter applied to the rows,
    the count beside the line says "filtering…", never the old text's count over the old rows (the pause
    before the filter runs is made long here, so that the state in between can be seen)."""
    import tcsexam.tui.widgets.filter_bar as filter_bar

    monkeypatch.setattr(filter_bar, "DEBOUNCE_S", 60.0)
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        table = await overview(pilot)
        count = app.main.query_one("#overview-filter .filter-count")
        await pilot.press("slash", *"atlas")
        await pilot.pause()
        assert str(count.render()) == "filtering…"
        assert table.row_count == 3  # the rows are still the old filter's
        await pilot.press("enter")  # applies the filter at once
        await settle(pilot)
        assert table.row_count == 1 and str(count.render()).startswith("1 of 3 models")


async def test_text_typed_back_to_the_filter_applied_shows_its_count_again():
    """A key, then backspace: the text is the filter applied again, so no filter runs, and "filtering…"
    stayed beside it for good (a review typed fast in tmux). The count comes back once typing pauses."""
    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        table = await overview(pilot)
        count = app.main.query_one("#overview-filter .filter-count")
        await pilot.press("slash", *"atl", "enter")
        await settle(pilot)
        said = str(count.render())
        assert table.row_count == 1 and said.startswith("1 of 3 models")
        await pilot.press("slash", "x", "backspace")  # "filtering…" until typing pauses (tested above)
        await wait_until(pilot, lambda: str(count.render()) == said, "the count back")
        assert table.row_count == 1


@pytest.mark.parametrize("size", SIZES)
async def test_the_worst_list_filters_with_slash_and_sorts_with_s(size):
    """docs/dashboard.md#find-and-order: in the worst-instances list `/` keeps the rows whose task, attempt
    or instance holds the words typed (`status:` their status), `s` sorts by a column, `S` reverses;
    expected rows built here from the model's own instances."""
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        model = "borealis-8x22b"
        screen = await open_worst(pilot, model)
        table = screen.query_one(DataTable)
        expected = worst_oracle(app.state, model)
        timeouts = [r for r in screen.rows if r.status == "timeout"]
        assert timeouts and len(timeouts) < len(screen.rows)
        await pilot.press("/", *"status:time", "enter")
        await wait_until(pilot, lambda: table.row_count == len(timeouts), lambda: f"{table.row_count} rows")
        assert {row_at(table, i)[5] for i in range(table.row_count)} == {"timeout"}
        assert [row_at(table, i)[2] for i in range(table.row_count)] == [r.instance for r in timeouts]
        # the filter cleared: every row again; then sorted by instance name, A first, and reversed
        screen.query_one("#worst-filter Input").focus()
        await pilot.press("escape")
        await wait_until(pilot, lambda: table.row_count == len(expected), lambda: f"{table.row_count} rows")
        await pilot.press("s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SortPicker", "the sort picker")
        await pilot.press("up", "enter")  # from Phi (the current order) to instance
        by_name = sorted(expected, key=lambda e: e[2])  # stable: ties keep the lowest-Phi-first order
        await wait_until(
            pilot,
            lambda: [row_at(table, i)[2] for i in range(table.row_count)] == [e[2] for e in by_name],
            "sorted by instance",
        )
        await pilot.press("S")
        reverse = sorted((e[2] for e in expected), reverse=True)
        await wait_until(pilot, lambda: [row_at(table, i)[2] for i in range(table.row_count)] == reverse, "reversed")


async def test_coverage_names_no_status_word_unknown_that_its_issues_match():
    """Coverage's `/status:ign` kept the demo's ignored row in the issues table, while the count said
    "no status starts with ign" (a review): a status word is checked against the models' statuses and
    the issues' kinds, as the filter itself reads it."""
    app = create_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("slash", *"status:ign", "enter")
        await settle(pilot)
        note = bar_count(app, "#coverage-filter") + bar_hint(app, "#coverage-filter")
        assert "no status" not in note, note
        title = str(app.main.query_one("#issues-title").render())
        assert title.startswith("Issues and ignored rows (1 of "), title
        await pilot.press("slash", "ctrl+u", *"status:xyz", "enter")
        await settle(pilot)
        note = bar_hint(app, "#coverage-filter")
        assert "no status starts with xyz (statuses: complete, provisional, incomplete, " in note and "ignored" in note


async def test_a_filter_that_leaves_no_model_says_so_under_the_table():
    """With status:xyz the table was empty and the line under it still described atlas-70b (a review)."""
    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        detail = app.main.query_one("#overview-detail", Static)
        assert str(detail.render()).startswith("atlas-70b")
        await pilot.press("slash", *"status:xyz", "enter")
        await settle(pilot)
        assert str(detail.render()) == "No model passes the filter: escape clears it."
        await pilot.press("escape")
        await settle(pilot)
        assert str(detail.render()).startswith("atlas-70b")
