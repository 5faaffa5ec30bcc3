"""The dashboard holds up (issue 11): every defect of the dashboard review, driven headless with Pilot.

Each test is named after the finding it guards (A1..A16 of the review); figures are the demo's
own numbers or written out here, never computed by the dashboard under test.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from textual import events
from textual.widgets import DataTable, Input, Select, Static

from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.tui.app import HEADER_SPARE, create_app
from tcsexam.tui.messages import InstancesLoaded
from tcsexam.tui.panes.instances.pane import InstancesPane
from tcsexam.tui.panes.instances.table import InstanceTable
from tcsexam.tui.panes.overview.pane import OverviewPane
from tcsexam.tui.screens.attempts import AttemptsScreen
from tcsexam.tui.screens.confirm import ConfirmScreen
from tcsexam.tui.screens.help import HelpScreen
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import (
    notifications,
    reload_rejected,
    row_at,
    screen_text,
    send_to_driver,
    settle,
    timers,
    wait_until,
)

SIZE = (120, 40)
SMALL = (80, 24)
DATA = Path(__file__).resolve().parent / "data" / "tau2"  # copies with their provenance (PROVENANCE.md)
TAU2 = DATA / "derived" / "derived_C_edge_4x5.json"
TAU2_CLEAN = DATA / "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
needs_tau2 = pytest.mark.skipif(not TAU2.is_file(), reason="tests/data/tau2 is missing")


def text_of(app, selector: str) -> str:
    return str(app.main.query_one(selector, Static).render())


def shown(app, screen_type, body: str) -> bool:
    """Whether the screen on top is a ``screen_type`` whose ``body`` has been laid out."""
    return isinstance(app.screen, screen_type) and app.screen.query_one(body).region.area > 0


@pytest.fixture
def demo_copy(tmp_path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(demo_run(), target)
    return target


async def open_instances(pilot, app, task: str | None = None, attempt: str | None = None):
    await pilot.press("3")
    await settle(pilot)
    if task:
        app.main.query_one("#instances-task", Select).value = task
        await settle(pilot)
    if attempt:
        app.main.query_one("#instances-attempt", Select).value = attempt
        await settle(pilot)
    return app.main.query_one(InstancesPane)


# --- A1: nothing heavy on the event loop ------------------------------------------------------------


async def test_a1_state_repr_is_one_short_line():
    """Textual formats a worker's arguments with repr() on the UI thread: the state's must be cheap."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_instances(pilot, app)
        assert len(repr(app.state)) < 120
        assert all(len(w.description) < 80 for w in app.workers)


async def test_a1_instances_of_a_model_no_longer_selected_are_dropped():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, app)
        assert pane.key[0] == "atlas-70b"
        shown = pane.columns
        stale = ("borealis-8x22b", "maxcut-mqlib", "1")
        pane.post_message(InstancesLoaded(stale, shown))
        await settle(pilot)
        assert pane.key == ("atlas-70b", "maxcut-mqlib", "1")


async def test_a1_a_pane_waiting_for_its_data_shows_the_loading_indicator(monkeypatch):
    import tcsexam.tui.workers as workers_module

    gate = threading.Event()
    real = workers_module.load_state

    def slow(config, progress=None, started=None, paths=None, let_go=None):
        gate.wait(10)
        return real(config, progress, started, paths, let_go)

    monkeypatch.setattr(workers_module, "load_state", slow)
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        overview = app.main.query_one(OverviewPane)
        assert overview.loading and "loading" in app.sub_title
        gate.set()
        await settle(pilot)
        assert not overview.loading and app.state is not None


async def test_a1_watch_runs_in_a_worker_off_the_event_loop(demo_copy):
    app = create_app(DashboardConfig(run_dir=str(demo_copy), watch=True), watch_debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [w.group for w in app.workers] == ["watch"]
        assert not timers(app)  # no polling on the event loop
        csv = demo_copy / "attempts.csv"
        tmp = demo_copy / "attempts.csv.new"  # replaced by rename, as editors and sed -i do
        tmp.write_text(
            csv.read_text().replace(
                "cirrus-mini,theorem,thm-ramsey-bound,1,,selected,judge_failed",
                "cirrus-mini,theorem,thm-ramsey-bound,1,1,selected,valid",
            )
        )
        tmp.replace(csv)
        await wait_until(
            pilot,
            lambda: app.state.document["models"]["cirrus-mini"]["coverage"]["not_valid"] == [],
            "the run read again after the rename",
        )
        assert app.state.document["models"]["cirrus-mini"]["coverage"]["not_valid"] == []


# --- A2: a reload re-reads every pane and keeps the user's choices ----------------------------------


async def test_a2_reload_rescores_the_instances_on_screen_and_keeps_the_choices(demo_copy):
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, app, "maxcut-mqlib", "1")
        pane.sort("A", True)
        pane.filter_status("ok")
        await settle(pilot)
        first = pane.columns
        i = [first.name(k) for k in range(len(first))].index("MAX0001")
        assert first.A[i] == pytest.approx(47558.1)
        path = demo_copy / "records" / "atlas-70b" / "maxcut-mqlib" / "1.json"
        records = json.loads(path.read_text())
        next(r for r in records if r["instance"] == "MAX0001")["A"] = 52000
        path.write_text(json.dumps(records))
        csv = demo_copy / "attempts.csv"
        # the relative score of the edited file, from `tcsexam solver-score` (review A2)
        csv.write_text(csv.read_text().replace("0.634942792636504", "0.6574717153474448"))
        await pilot.press("r")
        await settle(pilot)
        await settle(pilot)
        assert pane.key == ("atlas-70b", "maxcut-mqlib", "1")
        assert pane.columns is not first
        j = [pane.columns.name(k) for k in range(len(pane.columns))].index("MAX0001")
        assert pane.columns.A[j] == 52000 and pane.columns.phi[j] > 0.999
        assert pane.columns.relative_score == pytest.approx(0.6574717153474448, abs=1e-12)
        assert "0.657472" in text_of(app, "#instances-status")
        assert app.main.query_one("#instances-sort", Select).value == "A:1"
        assert app.main.query_one("#instances-filter", Select).value == 0


async def test_a2_reload_keeps_the_chosen_attempt(demo_copy):
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, app, "tsp-concorde", "2")
        assert pane.key == ("atlas-70b", "tsp-concorde", "2")
        await pilot.press("r")
        await settle(pilot)
        await settle(pilot)
        assert pane.key == ("atlas-70b", "tsp-concorde", "2")
        assert app.main.query_one("#instances-attempt", Select).value == "2"


# --- A3: Compare's columns size to their content after a Select change ------------------------------


async def test_a3_compare_columns_keep_their_width_after_a_select_change():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await pilot.pause()
        await pilot.press("tab", "enter", "down", "enter")  # model B: borealis -> cirrus-mini
        await settle(pilot)
        pane = app.main.query_one("ComparePane")
        await wait_until(pilot, lambda: pane.pair() == ("atlas-70b", "cirrus-mini"), "Compare on the new pair")
        await pilot.pause()  # and laid out
        assert app.main.query_one("#compare-b", Select).value == "cirrus-mini"
        shown = screen_text(app)
        # atlas-70b − cirrus-mini on the demo: P theorem +0.9167, se 0.0833, 95% [+0.6515, +1.1819] (3 decimals)
        assert "0.083" in shown and "[+0.651, +1.182]" in shown


async def test_a16_compare_puts_nothing_of_the_index_in_the_tasks_column_and_shows_no_df():
    """The index row once put its degrees of freedom in the tasks column, then in a ``df`` column a later
    review called jargon: the screen shows none (``tcsexam compare`` gives them), and the index row's
    tasks cell is empty."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.main.query_one("#compare-table", DataTable)
        labels = [str(c.label) for c in table.ordered_columns]
        assert labels == ["track", "A − B", "se", "95% interval", "tasks"]
        index_row = row_at(table, table.row_count - 1)
        assert index_row[0] == "Index (points)" and index_row[4] == "" and len(index_row) == 5


# --- A4 / item 3: every size -----------------------------------------------------------------------


async def test_a4_at_80x24_instances_shows_at_least_five_rows():
    app = create_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await open_instances(pilot, app)
        table = app.main.query_one(InstanceTable)
        assert table.scrollable_content_region.height >= 5
        assert table.region.bottom <= SMALL[1]
        shown = screen_text(app)
        assert sum(f"MAX00{k:02d}" in shown for k in range(1, 10)) >= 5


async def test_a4_at_80x24_the_coverage_issues_can_be_reached():
    app = create_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        issues = app.main.query_one("#issues-table", DataTable)
        issues.focus()  # which scrolls it into view
        await wait_until(pilot, lambda: 0 < issues.region.y < SMALL[1] - 1, "the issues table in view")
        assert 0 < issues.region.y < SMALL[1] - 1 and issues.region.height >= 2
        assert "thm-sensitivity" in screen_text(app) and "provisional" in screen_text(app)


async def test_at_80x24_enter_on_an_issue_shows_its_cell_though_the_line_under_the_grid_wraps():
    """A review pressed Enter on cirrus-mini's con-expander issue: the cursor went to the cell, but the line
    under the grid took two lines, the grid one fewer, and the cell was out of view."""
    app = create_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("tab")
        await settle(pilot)
        issues = app.main.query_one("#issues-table", DataTable)
        await pilot.press(
            "down", "down", "down", "down"
        )  # the review's keys, and one for the excluded attempt now listed
        await settle(pilot)
        assert any("con-expander" in str(c) for c in issues.get_row_at(issues.cursor_row))
        await pilot.press("enter")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        assert str(grid.get_row_at(grid.cursor_row)[0]).endswith("con-expander")
        assert "1 without a" in screen_text(app)  # the line under the grid wraps at 80 columns
        shown = [line for line in screen_text(app).splitlines() if "con-expander" in line and "0/1" in line]
        assert shown, screen_text(app)  # the cursor's row, its cell 0/1, on screen


@pytest.mark.parametrize("size", [SMALL, (200, 50)])
async def test_a4_modals_fit_the_screen(size):
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: shown(app, HelpScreen, "#help-body"), "the help laid out")
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.query_one("#help-body")
        assert body.region.right <= size[0] and body.region.bottom <= size[1]
        await pilot.press("escape")
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        grid.focus()
        grid.move_cursor(row=grid.get_row_index("thm-pcp-gap"), column=1)
        await pilot.press("a")
        await wait_until(pilot, lambda: shown(app, AttemptsScreen, "#attempts-body"), "the attempts laid out")
        assert isinstance(app.screen, AttemptsScreen)
        body = app.screen.query_one("#attempts-body")
        assert body.region.right <= size[0] and body.region.bottom <= size[1]
        if size[0] >= 120:
            assert "replaced by attempt 4" in screen_text(app)  # the note is not cut


@needs_tau2
async def test_a4_at_80x24_the_tau2_tables_show_rows():
    app = create_app(DashboardConfig(tau2=str(TAU2)))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        tasks = app.main.query_one("#tau2-tasks", DataTable)
        assert tasks.region.height >= 4 and tasks.region.bottom <= SMALL[1]


# --- A7: a rejected reload leaves a lasting mark; export asks -------------------------------------


async def test_a7_at_80_columns_the_stale_mark_leaves_room_for_the_run_and_its_status(demo_copy):
    """The mark was cut by the header's edge at 80 and 120 columns ("…; sho…"), the run's folder and
    status gone: it now takes the longest of its forms that leaves them room."""
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await reload_rejected(pilot, demo_copy / "attempts.csv")
        at = re.escape(app.shown.stale["at"])
        head = app.sub_title.split(" · incomplete")[0] + " · incomplete"  # what must show: the status too
        assert app.sub_title.startswith("STALE") and len(head) <= SMALL[0] - HEADER_SPARE, app.sub_title
        assert f"/{demo_copy.name} · incomplete" in app.sub_title
        await pilot.resize_terminal(200, 30)
        await settle(pilot)
        assert re.match(f"STALE: inputs rejected at {at} \\(1 problem\\); showing ", app.sub_title)


async def test_a7_rejected_reload_marks_the_view_stale_and_export_asks(demo_copy, tmp_path):
    out = tmp_path / "out" / "index.json"
    app = create_app(DashboardConfig(run_dir=str(demo_copy), output=str(out)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "STALE" not in app.sub_title
        csv = demo_copy / "attempts.csv"
        good = csv.read_text()
        csv.write_text(good.replace("selected,valid", "selected,bogus", 1))
        await pilot.press("r")
        await settle(pilot)
        assert app.sub_title.startswith("STALE: inputs rejected at ")
        tab = app.main.query_one("TabbedContent").get_tab("diagnostics")
        assert "⚠ 1" in str(tab.label)
        assert "STALE since" in text_of(app, "#diagnostics-text")
        assert len(notifications(app)) == 1  # the toast of the rejection, shown for 6 s
        await wait_until(pilot, lambda: not len(notifications(app)), "the toast gone", timeout=20)
        assert app.sub_title.startswith("STALE")  # the marker is not
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the export's question")
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "the question answered")
        await settle(pilot)
        assert not out.exists()
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the export's question")
        await pilot.press("y")
        await wait_until(pilot, out.is_file, f"{out} written")
        csv.write_text(good)
        await pilot.press("r")
        await settle(pilot)
        assert "STALE" not in app.sub_title and str(tab.label) == "7 Diagnostics"


# --- A8: large runs open on the leader; Coverage keeps its task column -----------------------------


def many_models(ws, n: int = 30) -> list[str]:
    """A run of n models whose file order is the reverse of their index order (model m00 is the weakest)."""
    from tests.support.runs import full_rows

    names = [f"m{i:02d}" for i in range(n)]
    rows = []
    for i, name in enumerate(names):
        rows += full_rows(name, {"t1": 1, "t2": int(i % 2), "s1": 0.01 * i, "s2": 0.5, "c1": 0.02 * i, "o1": 0})
    ws.write_rows(rows)
    ws.write_cohort(models={name: {"attempts_per_task": 1} for name in names})
    return names


async def test_a8_many_models_open_on_the_leader_with_the_task_column_fixed(ws):
    names = many_models(ws)
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.main.query_one("#overview-table", DataTable)
        assert table.cursor_row == 0 and table.scroll_y == 0
        assert row_at(table, 0)[0] == "m29" == app.selected_model  # the leader, not the first in file order
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        assert grid.fixed_columns == 1
        order = [c.key.value for c in grid.ordered_columns][1:]
        assert order == [row_at(table, i)[0] for i in range(table.row_count)]  # the Overview's order
        assert [str(c.label) for c in grid.ordered_columns][1:3] == [" \n1", " \n2"]  # numbered by Overview row
        assert order != names
        assert "S s1" in screen_text(app)


# --- A9: the selection reaches every tab ---------------------------------------------------------


async def test_a9_selection_reaches_coverage_and_compare():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.query_one("#overview-table", DataTable).focus()
        await pilot.press("down", "down")
        await settle(pilot)
        assert app.selected_model == "cirrus-mini"
        grid = app.main.query_one("#coverage-grid", DataTable)
        assert grid.coordinate_to_cell_key(grid.cursor_coordinate).column_key.value == "cirrus-mini"
        assert app.main.query_one("#compare-a", Select).value == "cirrus-mini"
        assert app.main.query_one("#compare-b", Select).value != "cirrus-mini"
        assert app.main.query_one(InstancesPane).model == "cirrus-mini"
        assert "independent of the model selected" in text_of(
            app, "#tau2-summary"
        ).lower() or "independent of the run" in text_of(app, "#tau2-summary")


# --- A10: Instances behaves like a data view ------------------------------------------------------


async def test_a10_filter_on_ok_shows_only_ok_rows():
    """ "ok" is status code 0: the filter once read it as no filter (0 == False, Textual's Widget.BLANK)."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, app, "maxcut-mqlib", "2")  # atlas-70b: 38 ok, 1 timeout, 1 crash
        table = app.main.query_one(InstanceTable)
        assert len(table.order) == 40
        pane.filter_status("ok")
        await settle(pilot)
        assert len(table.order) == 38 and set(pane.columns.status[table.order].tolist()) == {0}
        assert "Showing 38 of 40 instances with status ok." in text_of(app, "#instances-status")
        assert text_of(app, "#instances-detail").startswith("row 1 of 38 · ")


async def test_the_instances_status_counts_the_unscored_records_in_words(demo_copy):
    # each of the demo's records files holds one record the reference does not score; this one gets a second
    path = demo_copy / "records" / "atlas-70b" / "maxcut-mqlib" / "2.json"
    records = json.loads(path.read_text())
    path.write_text(json.dumps([*records, {"instance": "NOT-IN-THE-REFERENCE", "status": "ok", "A": 1.0}]))
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_instances(pilot, app, "tsp-concorde", "1")
        assert "; 1 unscored record excluded. " in text_of(app, "#instances-status")
        await open_instances(pilot, app, "maxcut-mqlib", "2")
        assert "; 2 unscored records excluded. " in text_of(app, "#instances-status")


async def test_a10_empty_filter_counts_and_header_sort():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, app, "maxcut-mqlib", "1")
        assert "40 ok" in text_of(app, "#instances-status")
        pane.filter_status("timeout")
        await settle(pilot)
        assert len(app.main.query_one(InstanceTable).order) == 0
        assert "0 of 40 instances, as none has status timeout" in text_of(app, "#instances-detail")
        pane.filter_status(None)
        await settle(pilot)
        header = app.main.query_one("#instances-header", Static)
        phi_x = str(header.render()).index("phi")
        await pilot.click("#instances-header", offset=(phi_x, 0))
        await settle(pilot)
        assert app.main.query_one("#instances-sort", Select).value == "phi:0"  # the failures first
        assert "phi ▲" in str(header.render())
        cols, table = pane.columns, app.main.query_one(InstanceTable)
        assert np.all(np.diff(cols.phi[table.order]) >= 0)
        await pilot.click("#instances-header", offset=(phi_x, 0))  # again: reversed
        await settle(pilot)
        assert app.main.query_one("#instances-sort", Select).value == "phi:1"
        assert np.all(np.diff(cols.phi[table.order]) <= 0)


async def test_a10_a_sort_puts_the_cursor_on_row_one_and_a_status_filter_keeps_it_on_its_instance():
    from tcsexam.tui.screens.sort_picker import SortPicker

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, app, "maxcut-mqlib", "1")
        table = app.main.query_one(InstanceTable)
        table.focus()
        await pilot.press("down", "down", "down", "down", "down")
        assert table.cursor == 5
        await pilot.press("s")  # the sort picker: the third column, A
        await settle(pilot)
        assert isinstance(app.screen, SortPicker)
        await pilot.press("home", "down", "down", "enter")
        await settle(pilot)
        assert app.main.query_one("#instances-sort", Select).value == "A:0"
        assert table.cursor == 0
        await pilot.press("S")
        await settle(pilot)
        assert app.main.query_one("#instances-sort", Select).value == "A:1" and table.cursor == 0
        await pilot.press("down", "down", "down")
        before = table.current_row()
        pane.filter_status("ok")  # every instance of this attempt is ok: the same rows
        await settle(pilot)
        assert table.current_row() == before


async def test_a10_keys_typed_right_after_slash_land_in_the_jump_box():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, app, "maxcut-mqlib", "1")
        app.main.query_one(InstanceTable).focus()
        await pilot.pause()
        # one burst, as a paste or a fast typist sends it: no pause between the keys
        for key, char in [
            ("slash", "/"),
            ("M", "M"),
            ("A", "A"),
            ("X", "X"),
            ("0", "0"),
            ("0", "0"),
            ("2", "2"),
            ("5", "5"),
        ]:
            event = events.Key(key, char)
            event.set_sender(app)
            send_to_driver(app, event)  # what the terminal driver does, without Pilot's waits
        jump = app.main.query_one("#instances-jump", Input)
        await wait_until(pilot, lambda: jump.value == "MAX0025", lambda: f"the jump box holds {jump.value!r}")
        assert app.main.query_one("TabbedContent").active == "instances"
        assert app.main.query_one("#instances-jump", Input).value == "MAX0025"
        await pilot.press("enter")
        await pilot.pause()
        assert pane.columns.name(app.main.query_one(InstanceTable).current_row()) == "MAX0025"


# --- A11 / item 7: the tau2 tab -----------------------------------------------------------------


@needs_tau2
async def test_a11_tau2_sorts_names_its_run_and_says_demo_nowhere_falsely():
    app = create_app(DashboardConfig(tau2=str(TAU2)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        summary = text_of(app, "#tau2-summary")
        assert "domain telecom" in summary and "agent gpt-4.1-2025-04-14" in summary and "trials 4" in summary
        assert app.state is None  # --tau2 alone: no synthetic demo behind tabs 1-5
        assert "No run" in text_of(app, "#overview-summary") and "DEMO" not in app.sub_title
        tasks = app.main.query_one("#tau2-tasks", DataTable)
        avg = [str(c.label) for c in tasks.ordered_columns].index("avg reward")
        await pilot.click(
            "#tau2-tasks", offset=(sum(c.get_render_width(tasks) for c in tasks.ordered_columns[:avg]) + 1, 0)
        )
        await pilot.pause()
        values = [float(row_at(tasks, i)[avg]) for i in range(tasks.row_count)]
        assert values == sorted(values) and "▲" in str(tasks.ordered_columns[avg].label)
        await pilot.press("S")
        values = [float(row_at(tasks, i)[avg]) for i in range(tasks.row_count)]
        assert values == sorted(values, reverse=True)


@needs_tau2
async def test_a11_tau2_reloads_and_sends_its_problems_to_diagnostics(tmp_path):
    path = tmp_path / "results.json"
    shutil.copy(TAU2_CLEAN, path)
    app = create_app(DashboardConfig(tau2=str(path)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "no findings" in text_of(app, "#tau2-audit-title")  # an empty audit is a sentence
        assert app.main.query_one("#tau2-audit").has_class("gone")
        path.write_text("{")
        await pilot.press("r")
        await settle(pilot)
        table = app.main.query_one("#diagnostics-tau2", DataTable)
        assert table.row_count >= 1 and str(path) in row_at(table, 0)[0]
        assert "⚠" in str(app.main.query_one("TabbedContent").get_tab("diagnostics").label)
        shutil.copy(TAU2_CLEAN, path)
        await pilot.press("r")
        await settle(pilot)
        assert app.tau2_problems == []


async def test_a11_the_demo_is_named_as_the_demo():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("DEMO")
        assert "DEMO" in text_of(app, "#overview-summary")


# --- A12: empty and error states say what is going on ----------------------------------------------


async def test_a12_rejected_inputs_do_not_say_loading(demo_copy):
    (demo_copy / "cohort.json").write_text("{")
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Loading" not in text_of(app, "#overview-summary")
        assert "rejected" in text_of(app, "#overview-summary")
        assert app.main.query_one("#overview-table").has_class("gone")
        assert "rejected" in text_of(app, "#coverage-legend")


async def test_a12_one_model_and_no_issues_are_sentences(ws):
    ws.write_cohort(models={"solo": {"attempts_per_task": 1}})
    ws.write_checked_run(models=("solo",))
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert text_of(app, "#compare-verdict") == "Only one model in this run: nothing to compare."
        assert text_of(app, "#issues-title").startswith("No issues and no ignored rows")
        assert app.main.query_one("#issues-table").has_class("gone")


async def test_a12_no_tau2_file_is_a_sentence():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert text_of(app, "#tau2-summary").startswith("No tau2-bench results open")
        assert app.main.query_one("#tau2-body").has_class("gone")


# --- A13: Enter drills down; help covers every tab ---------------------------------------------


async def test_a13_enter_on_an_overview_row_opens_its_instances():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.query_one("#overview-table", DataTable).focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.main.query_one("TabbedContent").active == "instances"
        assert app.main.query_one(InstancesPane).key[0] == "borealis-8x22b"


async def test_a13_enter_on_a_solver_cell_and_on_an_issue():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        grid.focus()
        grid.move_cursor(row=grid.get_row_index("tsp-concorde"), column=grid.get_column_index("borealis-8x22b"))
        await pilot.pause()  # focus() takes effect on the next turn of the loop
        assert app.focused is grid
        await pilot.press("enter")
        await settle(pilot)
        # the drill-down opens Instances with the cell's attempt and puts the keyboard on its table
        # (the table is loading when the tab opens: the focus must follow once it has loaded)
        assert app.main.query_one(InstancesPane).key[:2] == ("borealis-8x22b", "tsp-concorde")
        assert app.main.query_one("TabbedContent").active == "instances"
        assert app.focused is app.main.query_one(InstanceTable)
        await pilot.press("2")
        await settle(pilot)
        issues = app.main.query_one("#issues-table", DataTable)
        issues.focus()
        target = next(i for i in range(issues.row_count) if row_at(issues, i)[:2] == ["cirrus-mini", "con-expander"])
        issues.move_cursor(row=target)
        await pilot.press("enter")
        await settle(pilot)
        key = grid.coordinate_to_cell_key(grid.cursor_coordinate)
        assert (key.column_key.value, key.row_key.value) == ("cirrus-mini", "con-expander")
        assert grid.has_focus


async def test_a13_a_drill_down_whose_instances_load_slowly_still_opens_instances_with_the_focus(monkeypatch):
    """Enter on a solver cell while its records take a while to score: the Instances tab opens
    when the table is still under its loading indicator (it cannot take the focus then); the
    tab must stay open and the table get the focus once the instances are there."""
    import tcsexam.tui.panes.instances.pane as instances_module
    from tcsexam.tui.panes.instances.pane import LOADING_DELAY_S

    gate = threading.Event()
    real = instances_module.load_instances

    def slow(state, *key):
        gate.wait(10)
        return real(state, *key)

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        monkeypatch.setattr(instances_module, "load_instances", slow)
        grid = app.main.query_one("#coverage-grid", DataTable)
        grid.move_cursor(row=grid.get_row_index("tsp-concorde"), column=grid.get_column_index("borealis-8x22b"))
        grid.focus()
        await pilot.pause()
        await pilot.press("enter")
        table = app.main.query_one(InstanceTable)
        # the indicator comes once the scoring has taken LOADING_DELAY_S
        await wait_until(pilot, lambda: table.loading, f"the loading indicator, after {LOADING_DELAY_S} s")
        assert table.loading  # still scoring: the tab has opened before the data, under the indicator
        assert app.main.query_one("TabbedContent").active == "instances"
        gate.set()
        await settle(pilot)
        await pilot.pause()
        assert app.main.query_one(InstancesPane).key[:2] == ("borealis-8x22b", "tsp-concorde")
        assert app.main.query_one("TabbedContent").active == "instances"
        assert app.focused is table
        await pilot.press("down")  # and the keyboard is on the table: the cursor moves
        assert table.cursor == 1


async def test_a13_help_covers_every_tab():
    from tcsexam.tui.panes import PANES

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        text = app.screen.text
    for tab in PANES:
        assert f"## {tab.label()}" in text
    assert "`tcsexam table`).\n\n## 2 Coverage\n\n| key | action |" in text  # sections, not one block


# --- A16: nits ------------------------------------------------------------------------------------


async def test_a16_header_names_the_run_and_watch(demo_copy):
    app = create_app(DashboardConfig(run_dir=str(demo_copy), watch=True), watch_debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith(str(demo_copy)) and app.sub_title.endswith("watching")
        assert app.main.query_one("#passk-table", DataTable).cursor_type == "none"


def test_a16_a_wrong_run_dir_fails_fast_with_exit_1(tmp_path, capsys):
    """A missing RUN_DIR is a missing input, exit 1 as for every command, before the app opens."""
    from tcsexam.tui.cli import main

    assert main(["tui", str(tmp_path / "nonexistent")]) == 1
    assert "nonexistent: run directory not found" in capsys.readouterr().err


# --- fast typing: a burst of tab keys ends on the last key's tab -----------------------------------


async def test_a_burst_of_tab_keys_ends_on_the_last_and_stays():
    """Keys sent at once, as a terminal delivers fast typing: the tab of each key opened and focused
    its table when its activation was handled, by then another tab's, and TabbedContent followed the
    focus back, activating again: two tabs took turns for a minute (seen in a real terminal)."""
    from textual import events
    from textual.widgets import TabbedContent

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in "2345123":
            event = events.Key(key, key)
            event.set_sender(app)
            send_to_driver(app, event)
        tabs = app.main.query_one(TabbedContent)
        await settle(pilot)  # every key of the burst handled
        seen = []
        for _ in range(12):  # twelve more rounds of the app's messages, however long each takes
            await pilot.pause()
            seen.append(tabs.active)
        assert seen == ["instances"] * 12, seen  # the last key's tab, and it stays
        assert app.focused is app.main.query_one(InstanceTable)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_a_long_leaderboard_table_keeps_its_group_title_in_view(tmp_path, size):
    """The focus scrolls a table taller than the view to its top: a title above it went out of view."""
    from tests.bench.synth import write_run

    write_run(tmp_path / "run60", models=60, attempts=1, seed=1)
    app = create_app(DashboardConfig(run_dir=str(tmp_path / "run60")))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("8")
        await settle(pilot)
        await pilot.wait_for_scheduled_animations()  # the focus scrolls the table
        assert "full / offline" in screen_text(app)
