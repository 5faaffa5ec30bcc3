"""The dashboard on large runs: the loader process (q ends it, progress is shown), Compare at any number
of models (no listed pairs needed) and with the same per-instance results wherever the run was loaded,
ranks not computed, and the windowed Coverage grid."""

from __future__ import annotations

import copy
import csv
import itertools
import os
import re
import time

import pytest
from textual.widgets import DataTable, Select, Static

from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.scoring.reports.compare import compare_run
from tcsexam.tui.app import create_app
from tcsexam.tui.cache import same_but_time
from tcsexam.tui.loader import is_large, load_compact_state, load_state_here, taken_back
from tcsexam.tui.panes.compare.instance_diffs import InstanceDiffsScreen
from tcsexam.tui.panes.compare.pane import ComparePane
from tcsexam.tui.panes.coverage.pane import WINDOW, CoveragePane
from tcsexam.tui.panes.overview.pane import OverviewPane
from tcsexam.tui.state import DashboardConfig, compare_pair, instance_drilldown, resolve_paths
from tcsexam.tui.widgets.loading import RunLoadingIndicator
from tests.bench.dashboard_load import alive  # one /proc check for the benchmark and the tests
from tests.support.dashboard import cli_compare, loading_cover, rerender, row_at, settle, spy_on_cells, wait_until

SIZE = (120, 40)
PROGRESS = "reading part 1 of the test run"


def endless_load(config, progress, paths=None, scored=None):
    """A loader (run in the loader process, as tui.loader.load_compact_state) that reports once, then never
    finishes on its own."""
    progress(PROGRESS)
    for _ in range(600):
        time.sleep(0.1)
    raise RuntimeError("the test's loader was not stopped")


# --- the loader process ---------------------------------------------------------------------------


async def test_q_during_a_load_quits_and_ends_the_loader_process(monkeypatch):
    import tcsexam.tui.loader as state_module

    monkeypatch.setattr(state_module, "load_compact_state", endless_load)
    app = create_app(DashboardConfig(isolate=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: PROGRESS in app.sub_title, "the loader's progress in the header")
        loaders = app.loaders.running()
        assert len(loaders) == 1
        pid = loaders[0].process.pid
        assert alive(pid)
        await pilot.press("q")
        await wait_until(pilot, lambda: not alive(pid), "the loader process gone")  # before the loader's own 60 s
    assert not alive(pid)
    assert not app.loaders.running()  # the worker waiting for it has returned
    assert not [w for w in app.workers if not w.is_finished]


async def test_the_loading_panes_and_the_header_name_what_is_being_read(monkeypatch):
    import tcsexam.tui.loader as state_module

    monkeypatch.setattr(state_module, "load_compact_state", endless_load)
    app = create_app(DashboardConfig(isolate=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: PROGRESS in app.sub_title, "the loader's progress in the header")
        indicator = loading_cover(app.main.query_one(OverviewPane))
        assert isinstance(indicator, RunLoadingIndicator)
        shown = str(indicator.render())
        # how long first, then what is being read (docs/dashboard-large-runs.md)
        assert re.search(r"Loading DEMO · \d+ s · " + re.escape(PROGRESS), shown) and "q quits" in shown
        await pilot.press("2")  # a tab switch is handled while it loads
        await wait_until(pilot, lambda: app.main.query_one("TabbedContent").active == "coverage", "the Coverage tab")
        await pilot.press("q")


def scored_then_endless_load(config, progress, paths=None, scored=None):
    """A loader (as ``endless_load``) that scores the run and says so, then never sends the rest of it."""
    scored(load_state_here(config, paths).document)
    endless_load(config, progress)


async def test_a_run_scored_in_a_loader_process_shows_its_overview_before_the_rest_crosses_over(monkeypatch):
    """docs/dashboard-large-runs.md: the Overview shows a run as soon as it is scored, unmarked (its
    numbers are current, not the cache's), while the other tabs wait for the rest of it."""
    import tcsexam.tui.loader as state_module

    monkeypatch.setattr(state_module, "load_compact_state", scored_then_endless_load)
    app = create_app(DashboardConfig(isolate=True, cache=False))  # a cold open: nothing was shown before
    expected = load_state_here(DashboardConfig(cache=False)).document
    async with app.run_test(size=SIZE) as pilot:
        table = app.main.query_one("#overview-table", DataTable)
        await wait_until(pilot, lambda: table.row_count == len(expected["models"]), "every model in the Overview")
        assert app.state is None and app.loaders.running()  # the rest has not crossed over
        assert "CACHED" not in app.sub_title
        shown = {row_at(table, i)[0] for i in range(table.row_count)}
        assert shown == set(expected["models"])
        assert loading_cover(app.main.query_one(OverviewPane)) is None
        assert isinstance(loading_cover(app.main.query_one(CoveragePane)), RunLoadingIndicator)
        await pilot.press("q")


def test_the_progress_counts_the_records_files_the_cross_check_reads():
    """Every adopted, valid, scored solver row's records file is read once: the last line says N / N."""
    with open(demo_run() / "attempts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    solver = [
        r
        for r in rows
        if r["track"] == "solver"
        and r["adoption_status"].startswith("selected")
        and r["score"] != ""
        and r["score_status"] == "valid"
    ]
    lines: list[str] = []
    load_state_here(DashboardConfig(), progress=lines.append)
    assert lines[0].startswith("reading attempts.csv, cohort.json")
    assert f"read {len(rows):,} attempt rows; scoring and ranking 3 models" in lines
    records = [line for line in lines if "records files re-scored" in line]
    n = len(solver)
    assert records[-1] == f"{n:,} / {n:,} records files re-scored; then scoring and ranking 3 models"  # count first
    assert lines[-1] == "planning attempts for 3 models"


async def test_a_rejected_run_comes_back_from_the_loader_process_as_problems(demo_copy):
    (demo_copy / "cohort.json").write_text("{")
    app = create_app(DashboardConfig(run_dir=str(demo_copy), isolate=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state is None and "invalid JSON" in (app.problems_text or "")
        assert not app.loaders.running()


# --- per-instance results at any size ---------------------------------------------------------------


@pytest.mark.parametrize("cache", [False, True])
def test_what_crosses_back_from_the_loader_process_has_every_attempts_phi_and_no_reference(large_demo, cache):
    config = DashboardConfig(run_dir=str(large_demo), cache=cache)
    rest, columnar = load_compact_state(config)  # what loader_main sends
    assert b"TaskReference" not in rest and b"TaskScore" not in rest
    # the per-instance results cross as raw arrays, never pickled (docs/dashboard-large-runs.md)
    assert b"InstanceColumns" not in rest and b"numpy" not in rest
    crossed, here = taken_back(iter((rest, columnar))), load_state_here(config)
    assert same_but_time(crossed.document, here.document)
    assert crossed.plan == here.plan and crossed.checked.records_used == here.checked.records_used
    for state in (crossed, here):
        assert state.checked.scores is state.columns  # one copy of the per-instance results
    assert crossed.columns.keys() == here.columns.keys() and here.columns
    for a, b in itertools.permutations(here.models, 2):
        expected = compare_pair(here, a, b)
        assert compare_pair(crossed, a, b) == expected and expected["instances"]
        for item in expected["instances"]:
            drilled = instance_drilldown(here, a, b, item)
            assert instance_drilldown(crossed, a, b, item) == drilled and drilled


async def compare_tab(run, isolate: bool) -> tuple:
    """The Compare tab of ``run`` loaded in a loader process (``isolate``) or in the dashboard's: its pair,
    each task's per-instance counts, and the drill-down's rows of each solver task that has counts."""
    app = create_app(DashboardConfig(run_dir=str(run), isolate=isolate))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert (app.state.run.reference is None) == isolate  # a loader process sends no reference
        await pilot.press("5")
        await settle(pilot)
        pane = app.main.query_one(ComparePane)
        tasks = pane.query_one("#compare-tasks", DataTable)
        counts = {row[0]: row[6] for row in (row_at(tasks, i) for i in range(tasks.row_count))}
        drilled = {}
        for item in (item for item, shown in counts.items() if shown != "—"):
            tasks.focus()
            tasks.move_cursor(row=tasks.get_row_index(item))
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, InstanceDiffsScreen)
            table = app.screen.query_one("#instance-diffs-table", DataTable)
            drilled[item] = [row_at(table, i) for i in range(table.row_count)]
            await pilot.press("escape")
            await settle(pilot)
        return pane.pair(), counts, drilled


async def test_the_compare_tab_of_a_large_run_is_the_same_loaded_in_a_loader_process_or_not(large_demo, capsys):
    isolated = await compare_tab(large_demo, isolate=True)
    here = await compare_tab(large_demo, isolate=False)
    assert isolated == here
    (a, b), counts, drilled = here
    oracle = cli_compare(large_demo, a, b, capsys)["instances"]
    assert {item: shown for item, shown in counts.items() if shown != "—"} == {
        item: f"{c['a_better']} / {c['b_better']} / {c['equal']}" for item, c in oracle.items()
    }
    assert len(drilled) == len(oracle) == 5 and all(len(rows) > 1 for rows in drilled.values())


# --- ranks of many models: pairs not listed, ranks not computed ------------------------------------


def demo_state_with(ranks_change):
    state = load_state_here(DashboardConfig())
    state.document = copy.deepcopy(state.document)
    ranks_change(state.document["ranks"])
    return state


def unlisted(ranks: dict) -> None:
    ranks["pairs"], ranks["pairs_listed"] = [], False


def not_computed(ranks: dict) -> None:
    ranks.update(models=None, pairs=[], pairs_listed=False, reason="more than 5,000 models")


async def test_compare_shows_a_pair_that_the_document_does_not_list(monkeypatch):
    import tcsexam.tui.workers as workers_module

    state = demo_state_with(unlisted)
    monkeypatch.setattr(
        workers_module, "load_state", lambda config, progress=None, started=None, paths=None, let_go=None: state
    )
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        a, b = "cirrus-mini", "borealis-8x22b"
        app.select_model(a)
        await settle(pilot)
        app.compare_with(b)
        await settle(pilot)
        pane = app.main.query_one("#compare")
        assert (pane.query_one("#compare-a", Select).value, pane.query_one("#compare-b", Select).value) == (a, b)
        await wait_until(pilot, lambda: pane.query_one("#compare-table", DataTable).row_count > 0, "the compare table")
        expected = compare_run(state.document, state.checked, a, b)["index"]
        verdict = str(pane.query_one("#compare-verdict", Static).render())
        # cirrus-mini is incomplete: the difference is over the tasks both have, not of indices
        assert f"Difference over the common tasks {expected['value']:+.2f} points" in verdict
        assert f"[{expected['lo']:+.2f}, {expected['hi']:+.2f}]" in verdict


async def test_ranks_not_computed_show_a_dash_and_say_why_once(monkeypatch):
    import tcsexam.tui.workers as workers_module

    state = demo_state_with(not_computed)
    monkeypatch.setattr(
        workers_module, "load_state", lambda config, progress=None, started=None, paths=None, let_go=None: state
    )
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.main.query_one("#overview-table", DataTable)
        rank = [str(c.label) for c in table.ordered_columns].index("Rank")
        assert {str(table.get_row_at(i)[rank]) for i in range(table.row_count)} == {"—"}
        summary = str(app.main.query_one("#overview-summary", Static).render())
        assert summary.count("more than 5,000 models") == 1


# --- the Coverage grid of many models ---------------------------------------------------------------


def many_models(document: dict, n: int) -> dict:
    """The demo's document with ``n`` models (copies of its first one under new names)."""
    doc = copy.deepcopy(document)
    first = next(iter(doc["models"].values()))
    doc["models"] = {f"model-{i:04d}": copy.deepcopy(first) for i in range(n)}
    return doc


@pytest.mark.parametrize("n", [WINDOW + 1, 3 * WINDOW])
async def test_the_coverage_grid_of_many_models_holds_a_window_and_renders_what_is_in_view(monkeypatch, n):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        doc = many_models(app.state.document, n)
        models = list(doc["models"])
        pane = app.main.query_one(CoveragePane)
        pane.show(doc, models[0], models)
        await pilot.press("2")
        await settle(pilot)
        grid = app.main.query_one("#coverage-grid", DataTable)
        assert len(grid.columns) == WINDOW + 1  # the task column and a window of models, never all n
        assert f"Models 1–{WINDOW} of {n:,}" in str(app.main.query_one("#coverage-legend", Static).render())
        rendered = spy_on_cells(monkeypatch, "coverage-grid")
        rerender(grid)
        await pilot.pause()
        first, last = grid.columns_in_view()
        assert rendered and rendered <= {0, *range(first, last)}
        assert last - first <= SIZE[0] // 2 < WINDOW  # a screen's width of columns, two characters each at least
        # past the window's last column the next model is shown, in a new window
        grid.focus()
        grid.move_cursor(column=WINDOW)
        await pilot.pause()
        assert grid.coordinate_to_cell_key(grid.cursor_coordinate).column_key.value == models[WINDOW - 1]
        await pilot.press("right")
        await pilot.pause()
        assert grid.coordinate_to_cell_key(grid.cursor_coordinate).column_key.value == models[WINDOW]
        assert len(grid.columns) == WINDOW + 1 and pane.first > 0
        await pilot.press("left")
        await pilot.pause()
        assert grid.coordinate_to_cell_key(grid.cursor_coordinate).column_key.value == models[WINDOW - 1]
        # a model selected elsewhere brings its window
        pane.follow(models[-1])
        await pilot.pause()
        assert grid.coordinate_to_cell_key(grid.cursor_coordinate).column_key.value == models[-1]


def test_the_loader_process_ends_with_the_dashboards_process():
    """A loader whose dashboard was killed (no q, no exit handlers) ends by itself."""
    import multiprocessing
    import signal
    import subprocess
    import sys

    code = (
        "import sys, time\n"
        "sys.path[:0] = sys.argv[1:]\n"
        "import test_tui_large_runs as t, tui.loader as s\n"
        "loader = s.LoaderProcess(s.DashboardConfig(), t.endless_load)\n"
        "print(loader.process.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    here = os.path.dirname(__file__)
    parent = subprocess.Popen(
        [sys.executable, "-c", code, here, os.path.dirname(here)], stdout=subprocess.PIPE, text=True
    )
    try:
        pid = int(parent.stdout.readline())
        assert alive(pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        for _ in range(600):  # up to 30 s: the loader looks for its parent every 0.2 s
            if not alive(pid):
                break
            time.sleep(0.05)
        assert not alive(pid)
    finally:
        parent.kill()
    assert multiprocessing.active_children() == []


def test_a_run_with_a_large_attempts_table_is_loaded_in_a_loader_process(demo_copy):
    from tcsexam.tui.loader import LARGE_ATTEMPTS_BYTES

    paths = resolve_paths(DashboardConfig(run_dir=str(demo_copy)))
    assert not is_large(paths)  # the demo loads in the dashboard's process
    attempts = demo_copy / "attempts.csv"
    lines = attempts.read_text().splitlines(keepends=True)
    body = "".join(lines[1:])
    attempts.write_text(lines[0] + body * (LARGE_ATTEMPTS_BYTES // len(body) + 1))
    assert is_large(paths)


async def test_the_palette_of_many_models_lists_their_commands_once_something_is_typed():
    import dataclasses

    from tcsexam.tui.commands import MODEL_HITS
    from tests.support.dashboard import palette_hits, run_command

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        doc = many_models(app.state.document, 300)
        app.shown.state = dataclasses.replace(app.state, document=doc)
        app.selected_model = "model-0000"
        await pilot.press("ctrl+p")
        shown = await palette_hits(pilot, "")  # what the palette lists on opening, nothing typed
        assert shown and not [p for p in shown if p.startswith(("Jump to model", "Compare"))], shown
        await pilot.press("escape")
        await pilot.pause()
        prompts = await run_command(pilot, "model-0123", enter=False)
        assert "Jump to model model-0123" in prompts
        assert "Compare model-0000 vs model-0123" in prompts
        assert len([p for p in prompts if p.startswith(("Jump to model", "Compare"))]) <= MODEL_HITS


async def test_the_overview_of_many_models_fills_in_chunks_and_sorts_the_rows_it_holds():
    from tcsexam.tui.panes.overview.pane import FILL_CHUNK
    from tcsexam.tui.panes.overview.views import overview_rows, sort_rows

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        doc = many_models(app.state.document, 2 * FILL_CHUNK + 50)
        for i, m in enumerate(doc["models"].values()):  # distinct indices: one order by index
            m["index"] = float(i % 97) + i / 1000
        pane = app.main.query_one(OverviewPane)
        table = pane.query_one(DataTable)
        pane.show(doc, None)
        assert table.row_count == FILL_CHUNK  # the first chunk at once, the others in later turns
        await pilot.pause()
        pane.action_sort_reverse()  # a sort while rows are still being added starts the fill again
        await wait_until(pilot, lambda: pane._filling is None, "the pane filled")
        expected = [r.model for r in sort_rows(overview_rows(doc), 2, False)]
        shown = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert shown == expected
        table.move_cursor(row=table.get_row_index(expected[10]))
        pane.action_sort_reverse()  # a sort of the rows held: same rows, new order, the cursor on the first
        await pilot.pause()
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == expected[::-1]
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == expected[-1]
