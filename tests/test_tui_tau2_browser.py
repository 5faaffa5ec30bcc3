"""The tau2 tab as a trajectory browser (docs/tau2.md#browsing-the-simulations): a task's simulations, a
simulation's messages and reward breakdown, checked against the tau2-bench files themselves; the task_id
column takes the free width; the summary stays pinned; the header and export with only --tau2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from tcsexam.scoring.tau2.files import load_tau2_results
from tcsexam.scoring.tau2.trajectory import simulation_trajectory, task_simulations
from tcsexam.tui.app import create_app
from tcsexam.tui.panes.tau2.simulations import Tau2SimulationsScreen
from tcsexam.tui.panes.tau2.trajectory import Tau2TrajectoryScreen
from tcsexam.tui.panes.tau2.views import tau2_message_blocks, tau2_reward_rows, tau2_task_rows
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import notifications, screen_lines, settle, wait_until
from tests.support.runs import to_dir_format

DATA = Path(__file__).parent / "data" / "tau2"
FOUR = DATA / "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
AIRLINE = DATA / "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json"
SIZES = {"80x24": (80, 24), "200x50": (200, 50)}

pytestmark = pytest.mark.skipif(not FOUR.is_file(), reason="tests/data/tau2 is missing")


def raw_simulations(path: Path) -> list[dict]:
    return json.loads(path.read_text())["simulations"]


# --- what is computed (scoring.tau2.trajectory) -----------------------------------------------------------


@pytest.mark.parametrize("layout", ["json", "dir"])
def test_a_tasks_simulations_and_a_simulations_messages_are_those_of_the_file(tmp_path, layout):
    raw = raw_simulations(FOUR)
    path = FOUR if layout == "json" else to_dir_format(FOUR, tmp_path / "run")
    results = load_tau2_results(path)
    task = str(raw[0]["task_id"])
    mine = sorted((s for s in raw if str(s["task_id"]) == task), key=lambda s: s["trial"])
    listed = task_simulations(results, task)
    assert [s["trial"] for s in listed] == [s["trial"] for s in mine]
    assert [s["reward"] for s in listed] == [s["reward_info"]["reward"] for s in mine]
    assert [s["termination_reason"] for s in listed] == [s["termination_reason"] for s in mine]
    assert [s["agent_cost"] for s in listed] == [s["agent_cost"] for s in mine]

    shown = simulation_trajectory(results, listed[0]["slot"])
    messages = mine[0]["messages"]
    assert [m["role"] for m in shown["messages"]] == [m["role"] for m in messages]
    assert [m["text"] for m in shown["messages"]] == [m["content"] or "" for m in messages]
    calls = [f"{c['name']}({json.dumps(c['arguments'], sort_keys=True)})" for c in messages[0]["tool_calls"]]
    assert shown["messages"][0]["tool_calls"] == calls

    info = mine[0]["reward_info"]
    reward = shown["reward"]
    assert reward["stored"] == info["reward"]
    assert [(c["component"], c["value"]) for c in reward["components"]] == [
        (c, info["reward_breakdown"][c]) for c in info["reward_basis"]
    ]
    env = [c["name"] for c in reward["checks"] if c["section"] == "ENV_ASSERTION"]
    assert env == [a["env_assertion"]["func_name"] for a in info["env_assertions"]]
    actions = [(c["name"], c["met"]) for c in reward["checks"] if c["section"] == "ACTION"]
    assert actions == [(a["action"]["name"], a["action_match"]) for a in info["action_checks"]]


def test_a_simulation_whose_file_changed_since_is_a_problem_naming_the_file(tmp_path):
    path = to_dir_format(FOUR, tmp_path / "run")
    results = load_tau2_results(path)
    (target,) = [p for p in (tmp_path / "run" / "simulations").iterdir() if p.stem == results.simulations[0].id]
    target.write_text("{")
    from tcsexam.scoring.errors import InputError

    with pytest.raises(InputError) as caught:
        simulation_trajectory(results, 0)
    assert caught.value.problems[0].file == str(target)


# --- what is shown (tui/panes/tau2/views.py) --------------------------------------------------------------------------


def test_messages_are_plain_text_escaped_and_keep_their_lines():
    trajectory = {
        "messages": [
            {
                "turn": 3,
                "role": "user",
                "text": "[bold]hi[/bold]\nsecond\x1b[31m line",
                "tool_calls": [],
                "error": False,
            },
            {"turn": 4, "role": "tool", "text": "boom", "tool_calls": ['f({"a": 1})'], "error": True},
        ]
    }
    (h1, b1), (h2, b2) = tau2_message_blocks(trajectory)
    assert h1 == "turn 3 · user" and b1 == "[bold]hi[/bold]\nsecond\\x1b[31m line"
    assert h2 == "turn 4 · tool · tool error" and b2 == 'boom\n→ f({"a": 1})'


def test_the_reward_rows_name_each_component_and_check():
    reward = {
        "stored": 0.0,
        "derived": 0.0,
        "gate": "",
        "basis": ["DB", "ACTION"],
        "components": [
            {"component": "DB", "value": 1.0, "source": "reward_breakdown"},
            {"component": "ACTION", "value": None, "source": ""},
        ],
        "checks": [{"section": "ACTION", "name": "refuel", "met": False, "reward": 0.0}],
    }
    rows = tau2_reward_rows(reward)
    assert ["", "1.000", "basis", "DB (from reward_breakdown)"] in rows
    assert ["", "—", "basis", "ACTION (not evaluated)"] in rows
    assert ["✗ not met", "0.000", "ACTION", "refuel"] in rows  # the outcome first, marked


def test_the_task_id_takes_the_width_the_other_columns_leave():
    long_id = "[issue]" + "t" * 106 + "[Easy]"  # 119: ids of one suite share their start and differ at the end
    metrics = {
        "tasks": [
            {
                "task_id": long_id,
                "n": 2,
                "successes": 1,
                "avg_reward": 0.5,
                "pass_hat_k": {"1": 0.5},
                "termination_reasons": {"agent_stop": 2},
            }
        ]
    }
    _, (row,) = tau2_task_rows(metrics, width=200)
    assert row[0] == long_id  # 119 + the other columns (48) fit in 200
    _, (row,) = tau2_task_rows(metrics, width=100)
    others = sum(
        max(len(h), len(c)) + 2
        for h, c in zip(["n", "successes", "avg reward", "pass^1", "termination"], row[1:], strict=True)
    )
    assert len(row[0]) == 100 - others - 4 and row[0].startswith("[issue]t") and row[0].endswith("t[Easy]")
    assert "…" in row[0]  # cut in its middle, where the review saw five ids cut to one text


# --- the app at 80x24 and 200x50 ------------------------------------------------------------------------


async def open_tau2(pilot):
    await settle(pilot)
    await pilot.press("6")
    await settle(pilot)
    pilot.app.main.query_one("#tau2-tasks", DataTable).focus()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
async def test_enter_lists_a_tasks_simulations_then_shows_one(monkeypatch, size):
    monkeypatch.chdir(DATA)
    raw = raw_simulations(FOUR)
    app = create_app(DashboardConfig(tau2=FOUR.name))
    async with app.run_test(size=SIZES[size]) as pilot:
        await open_tau2(pilot)
        tasks = app.main.query_one("#tau2-tasks", DataTable)
        task = str(tasks.coordinate_to_cell_key(tasks.cursor_coordinate).row_key.value)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, Tau2SimulationsScreen), "the simulations")
        sims = app.screen.query_one("#tau2-simulations", DataTable)
        mine = sorted((s for s in raw if str(s["task_id"]) == task), key=lambda s: s["trial"])
        assert sims.row_count == len(mine)
        assert [str(sims.get_row_at(i)[0]) for i in range(sims.row_count)] == [str(s["trial"]) for s in mine]
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, Tau2TrajectoryScreen), "the trajectory")
        await wait_until(pilot, lambda: app.screen.query(".tau2-message"), "its messages")
        shown = app.screen.query(".tau2-message")
        assert len(shown) == len(mine[1]["messages"])
        assert mine[1]["messages"][0]["role"] in str(shown.first(Static).render())
        await pilot.press("escape")
        assert isinstance(app.screen, Tau2SimulationsScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, Tau2SimulationsScreen | Tau2TrajectoryScreen)


@pytest.mark.parametrize("size", SIZES)
async def test_the_summary_stays_above_the_table(monkeypatch, size):
    monkeypatch.chdir(DATA)
    app = create_app(DashboardConfig(tau2=AIRLINE.name))
    async with app.run_test(size=SIZES[size]) as pilot:
        await open_tau2(pilot)
        summary = app.main.query_one("#tau2-summary", Static)
        top = summary.region.y
        await pilot.press("end")  # the last of 50 tasks
        pane = app.main.query_one("Tau2Pane")
        for widget in [pane, *pane.query("*")]:  # and whatever scrolls in the tab, to its end (the audit)
            if widget.allow_vertical_scroll:
                widget.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert summary.region.y == top and summary.region.height > 0
        assert summary.region.y + summary.region.height <= SIZES[size][1]


@pytest.mark.parametrize("size", SIZES)
async def test_a_long_path_is_one_line_cut_in_the_middle_never_broken_mid_word(tmp_path, size):
    """The summary's first line is the file's path: a path longer than the line keeps its start and
    its end (the file's name) with … between; before, it wrapped to a second line mid-word."""
    folder = tmp_path / ("experiments-of-the-long-name-kind-" * 3) / "2026-12-07-telecom-sweep"  # > 200 cells
    folder.mkdir(parents=True)
    path = folder / ("2025-08-10T02-44-06_" + FOUR.name)
    path.write_bytes(FOUR.read_bytes())
    app = create_app(DashboardConfig(tau2=str(path)))
    async with app.run_test(size=SIZES[size]) as pilot:
        await open_tau2(pilot)
        summary = app.main.query_one("#tau2-summary", Static)
        width = summary.content_size.width
        first = str(summary.render()).splitlines()[0]
        assert len(str(path)) > width  # a path the line cannot hold, at every size
        assert len(first) <= width and first.endswith("4trials_5tasks.json") and "…" in first, (first, width)
        head, tail = first.split("…")
        assert str(path).startswith(head) and str(path).endswith(tail)
        lines = screen_lines(app)
        assert any(line.strip() == first for line in lines)  # on screen as one line


@pytest.mark.parametrize("name", ["derived_B_infra_4x5.json", "derived_C_edge_4x5.json"])
async def test_at_80_columns_every_task_id_shown_is_a_different_text(name):
    """Four trials leave the id 12 cells at 80 columns: five telecom ids showed as two texts (a review)."""
    app = create_app(DashboardConfig(tau2=str(DATA / "derived" / name)))
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await open_tau2(pilot)
        tasks = app.main.query_one("#tau2-tasks", DataTable)
        shown = [str(tasks.get_row_at(i)[0]) for i in range(tasks.row_count)]
        assert tasks.row_count == 5 and len(set(shown)) == 5, shown


async def test_the_task_id_is_not_cut_when_the_screen_has_room(monkeypatch):
    monkeypatch.chdir(DATA)
    ids = sorted({str(s["task_id"]) for s in raw_simulations(FOUR)}, key=len)
    assert len(ids[-1]) > 36  # cut before
    app = create_app(DashboardConfig(tau2=FOUR.name))
    async with app.run_test(size=SIZES["200x50"]) as pilot:
        await open_tau2(pilot)
        tasks = app.main.query_one("#tau2-tasks", DataTable)
        shown = {str(tasks.get_row_at(i)[0]) for i in range(tasks.row_count)}
        assert shown == set(ids)


@pytest.mark.parametrize("size", SIZES)
async def test_with_only_tau2_the_header_names_the_file_and_export_is_not_offered(monkeypatch, size):
    monkeypatch.chdir(DATA)
    app = create_app(DashboardConfig(tau2=FOUR.name))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        # the file's name, whole where the header has room, else its start and end with … between
        shown = app.sub_title
        assert FOUR.name in shown or (FOUR.name[:12] in shown and shown.endswith(FOUR.name[-12:])), shown
        assert "no run" not in shown
        # no run, no index to export: e is not offered (footer, help, palette) and does nothing
        await pilot.press("e")
        await settle(pilot)
        assert notifications(app) == [] and not any(app.query("ExportToScreen"))
        assert not app.check_action("export", ())


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
async def test_every_checks_outcome_is_on_screen_first_and_long_assertions_wrap(monkeypatch, size):
    """docs/tau2.md#browsing-the-simulations: in a simulation's reward breakdown the outcome is the first
    column, so at 80×24 and 120×40 every check's outcome shows without scrolling, however long its NL
    assertion; the assertion wraps instead of pushing the outcome off screen. Task 2 of the airline file
    (its third task) fails checks whose assertions are sentences."""
    monkeypatch.chdir(DATA)
    raw = raw_simulations(AIRLINE)
    app = create_app(DashboardConfig(tau2=AIRLINE.name))
    async with app.run_test(size=size) as pilot:
        await open_tau2(pilot)
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, Tau2SimulationsScreen), "the simulations")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, Tau2TrajectoryScreen), "the trajectory")
        await wait_until(pilot, lambda: app.screen.trajectory is not None, "the breakdown")
        await settle(pilot)
        checks = app.screen.trajectory["reward"]["checks"]
        task = str(app.screen.task_id)
        info = next(s for s in raw if str(s["task_id"]) == task)["reward_info"]
        # the file's own outcomes: the DB check, each env assertion, action, communicate check and NL assertion
        failed = (info.get("db_check") or {}).get("db_match") is False
        failed += sum(a.get("met") is False for a in info.get("env_assertions") or [])
        failed += sum(a.get("action_match") is False for a in info.get("action_checks") or [])
        failed += sum(a.get("met") is False for a in info.get("communicate_checks") or [])
        failed += sum(a.get("met") is False for a in info.get("nl_assertions") or [])
        assert failed >= 1 and len(checks) >= 2
        lines = screen_lines(app)
        shown_failed = sum(line.lstrip(" ▏▎▍▌▋▊▉│").startswith("✗ not met") for line in lines)
        shown_met = sum(line.lstrip(" ▏▎▍▌▋▊▉│").startswith("✓ met") for line in lines)
        assert shown_failed == failed, lines
        assert shown_failed + shown_met == sum(c["met"] is not None for c in checks), lines
        assert all(len(line) <= size[0] for line in lines)
        # "not met" is coloured (red), "met" is not
        table = app.screen.query_one("#tau2-reward", DataTable)
        outcomes = [table.get_row_at(i)[0] for i in range(table.row_count)]
        red = [o.plain for o in outcomes if any("red" in str(span.style) for span in o.spans)]
        assert red == ["✗ not met"] * failed, red


def test_a_simulations_missing_cost_is_written_as_the_summary_writes_it():
    """One way to write a cost of 0 (tau2-bench records 0 when it recorded none): "$0 (no cost recorded)",
    in the summary and in a task's list of simulations alike; a cost in dollars otherwise."""
    from tcsexam.tui.panes.tau2.views import cost_text, tau2_simulation_rows

    sims = [
        {"trial": 0, "reward": 1.0, "success": True, "termination_reason": "agent_stop", "agent_cost": 0.0},
        {"trial": 1, "reward": 0.0, "success": False, "termination_reason": "user_stop", "agent_cost": 0.0471},
        {"trial": 2, "reward": 0.0, "success": False, "termination_reason": "user_stop", "agent_cost": None},
    ]
    assert [row[4] for row in tau2_simulation_rows(sims)] == ["$0 (no cost recorded)", "$0.0471", "—"]
    assert cost_text(0.0) == "$0 (no cost recorded)"


@pytest.mark.parametrize("with_run", [False, True])
async def test_the_summary_speaks_of_the_overviews_model_only_when_a_run_is_open(with_run):
    """With --tau2 alone there is no Overview model for the tab to be independent of (a review)."""
    from tcsexam.scoring.pipeline.benchmark import demo_run

    config = DashboardConfig(run_dir=str(demo_run()) if with_run else None, tau2=str(FOUR))
    app = create_app(config)
    async with app.run_test(size=SIZES["200x50"]) as pilot:
        await open_tau2(pilot)
        summary = str(app.main.query_one("#tau2-summary", Static).render())
        assert summary.rstrip().endswith("averaged over tasks." if not with_run else "selected in the Overview.")
