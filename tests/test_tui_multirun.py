"""Several runs in the dashboard (`tcsexam tui RUN_DIR...`): the switcher, the header, the Leaderboard.

The second run is built here from the bundled demo: the solver protocol online instead of offline,
one theorem attempt of atlas-70b scored 0 instead of 1 (so its numbers differ), and cirrus-mini
renamed delta-mini (a model the first run does not have). Expected numbers come from `tcsexam score`
and `tcsexam table` run on the same folders, never from the dashboard.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from textual.content import Content
from textual.widgets import DataTable, Static

from tcsexam.scoring.commands.main import main as cli_main
from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.tui.app import create_app
from tcsexam.tui.panes.leaderboard.pane import LeaderboardPane
from tcsexam.tui.screens.runs import RunsScreen
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import notices, notifications, reload_rejected, run_command, settle, wait_until
from tests.support.runs import online_copy

SIZE = (140, 45)


def score(run: Path, out: Path, capsys) -> dict:
    cli_main(["score", str(run), "--output", str(out)])
    capsys.readouterr()
    return json.loads(out.read_text())


def both(demo: Path, online: Path, **config):
    """The dashboard with the two runs open, the demo shown first."""
    return create_app(DashboardConfig(run_dir=str(demo), more_runs=[str(online)], **config))


@pytest.fixture
def two_runs(tmp_path, capsys):
    demo = tmp_path / "demo"
    shutil.copytree(demo_run(), demo)
    online = online_copy(tmp_path / "online")
    docs = {
        "demo": score(demo, tmp_path / "demo.json", capsys),
        "online": score(online, tmp_path / "online.json", capsys),
    }
    assert docs["demo"]["models"]["atlas-70b"]["index"] != docs["online"]["models"]["atlas-70b"]["index"]
    return demo, online, docs


def row_of(table: DataTable, key: str) -> list[str]:
    return [str(c) for c in table.get_row(key)]


def text_of(app, selector: str) -> str:
    return str(app.main.query_one(selector, Static).render())


def leaderboard_tables(app) -> list[tuple[str, list[list[str]]]]:
    """(title, rows as text) of every table of the Leaderboard, in order."""
    pane = app.main.query_one(LeaderboardPane)
    out = []
    for widget in pane.query("#leaderboard-groups > *"):
        if isinstance(widget, DataTable):
            # the border title as shown (border_title gives it back as markup)
            title = Content.from_markup(widget.border_title).plain if widget.border_title else None
            out.append((title, [[str(c) for c in widget.get_row_at(i)] for i in range(widget.row_count)]))
    return out


def switcher_shown(app) -> bool:
    """Whether the run switcher is on top, a row per run."""
    return isinstance(app.screen, RunsScreen) and app.screen.query_one(DataTable).row_count == len(app.runs)


def tab_open(app, tab: str) -> bool:
    """Whether ``tab`` is open with the keyboard on its pane (the last step of opening it)."""
    return app.main.query_one("TabbedContent").active == tab and app.focused in app.main.query_one(
        f"TabPane#{tab}"
    ).query("*")


async def switch_by_key(app, pilot, number: int) -> None:
    """R, then the run's row in the switcher, then Enter."""
    await pilot.press("R")
    await wait_until(pilot, lambda: switcher_shown(app), "the run switcher")
    assert isinstance(app.screen, RunsScreen)
    table = app.screen.query_one(DataTable)
    table.move_cursor(row=number)
    await pilot.press("enter")
    await settle(pilot)


def check_shows(app, doc: dict, name: str) -> None:
    """Every run tab shows ``doc`` (the CLI's index.json of that run)."""
    models = doc["models"]
    overview = app.main.query_one("#overview-table", DataTable)
    assert sorted(overview.rows) == sorted(models)
    atlas = models["atlas-70b"]
    assert row_of(overview, "atlas-70b")[2].startswith(f"{atlas['index']:.2f}")
    grid = app.main.query_one("#coverage-grid", DataTable)
    assert sorted(k.value for k in grid.columns if k.value in models) == sorted(models)
    assert not [k.value for k in grid.columns if k.value in ("cirrus-mini", "delta-mini") and k.value not in models]
    app.select_model("atlas-70b")
    passk = app.main.query_one("#passk-table", DataTable)
    pass1 = atlas["pass_hat_k"]["theorem"]["by_k"]["1"]
    pass1_column = [str(c.label) for c in passk.ordered_columns].index("pass^1")
    assert str(passk.get_row_at(0)[pass1_column]) == f"{pass1:.3f}"
    compare = app.main.query_one("ComparePane")
    assert compare.document["models"]["atlas-70b"]["index"] == atlas["index"]
    instances = app.main.query_one("InstancesPane")
    assert instances.state.document["models"] == models
    assert app.state.document["models"] == models
    assert app.sub_title.startswith(name)


async def test_two_runs_switch_by_key_every_tab_and_the_header_follow(two_runs):
    demo, online, docs = two_runs
    app = both(demo, online)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("demo · incomplete · lite/offline · run 1/2")
        check_shows(app, docs["demo"], "demo · ")
        await switch_by_key(app, pilot, 1)
        assert app.current == 1
        assert app.sub_title.startswith("online · incomplete · lite/online · run 2/2")
        await settle(pilot)
        check_shows(app, docs["online"], "online · ")
        await switch_by_key(app, pilot, 0)
        check_shows(app, docs["demo"], "demo · ")


async def test_switch_by_palette(two_runs):
    demo, online, docs = two_runs
    app = both(demo, online)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await run_command(pilot, "Switch to run online")
        assert app.current == 1 and app.sub_title.startswith("online · incomplete · lite/online · run 2/2")
        check_shows(app, docs["online"], "online · ")


async def test_the_selection_stays_where_the_new_run_has_it(two_runs):
    demo, online, docs = two_runs
    app = both(demo, online)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_model("borealis-8x22b")
        await settle(pilot)
        app.switch_run(1)
        await settle(pilot)
        assert app.selected_model == "borealis-8x22b"
        instances = app.main.query_one("InstancesPane")
        assert instances.model == "borealis-8x22b" and instances.state is app.state
        app.switch_run(0)
        app.select_model("cirrus-mini")
        await settle(pilot)
        app.switch_run(1)
        await settle(pilot)
        # cirrus-mini is not in the online run: the Overview's top row, the highest index there
        online_models = docs["online"]["models"]
        best = max(
            (m for m in online_models if online_models[m]["index"] is not None), key=lambda m: online_models[m]["index"]
        )
        assert app.selected_model == best


def expected_cells(csv_text: str) -> list[tuple[str, list[list[str]]]]:
    """`tcsexam table --format csv` (unrounded) rounded as docs/commands.md says: index 2 decimals, tracks 3,
    ± the half-width (hi − lo)/2, — for null, † for provisional, rank best or best–worst."""

    def pm(v: str, lo: str, hi: str, digits: int) -> str:
        if v == "":
            return "—"
        out = f"{float(v):.{digits}f}"
        return out if lo == "" else out + f" ± {(float(hi) - float(lo)) / 2:.{digits}f}"

    groups: dict[str, list[list[str]]] = {}
    for r in csv.DictReader(io.StringIO(csv_text)):
        best, worst = r["rank_best"], r["rank_worst"]
        rank = "" if best == "" else (best if best == worst else f"{best}–{worst}")
        model = r["model"] + (" †" if r["provisional"] == "true" else "")
        tracks = [pm(r[t], r[f"{t}_ci95_lo"], r[f"{t}_ci95_hi"], 3) for t in "PSCO"]
        cells = [rank, model, r["status"], pm(r["index"], r["index_ci95_lo"], r["index_ci95_hi"], 2), *tracks]
        groups.setdefault(f"{r['suite']} / {r['solver_protocol']}", []).append(
            [*cells, f"{r['tasks_complete']}/{r['tasks_total']}"]
        )
    return list(groups.items())


async def test_leaderboard_equals_tcsexam_table_csv(two_runs, tmp_path, capsys):
    demo, online, docs = two_runs
    # the online run named first: the groups still come in docs/commands.md's order (lite/offline first)
    assert cli_main(["table", str(tmp_path / "online.json"), str(tmp_path / "demo.json"), "--format", "csv"]) == 0
    expected = expected_cells(capsys.readouterr().out)
    assert [title for title, _ in expected] == ["lite / offline", "lite / online"]
    app = create_app(DashboardConfig(run_dir=str(online), more_runs=[str(demo)]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("8")
        await settle(pilot)
        assert leaderboard_tables(app) == expected


async def open_leaderboard(app, pilot) -> LeaderboardPane:
    """The app started and its Leaderboard tab (8) open: its pane."""
    await settle(pilot)
    await pilot.press("8")
    await settle(pilot)
    return app.main.query_one(LeaderboardPane)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_leaderboard_line_names_the_run_of_the_focused_tables_row(two_runs, size):
    """Under the tables, the cursor row's model and run: that of the table with the focus (the first when
    the tab opens), never the last table drawn."""
    demo, online, docs = two_runs
    app = both(demo, online)
    async with app.run_test(size=size) as pilot:
        pane = await open_leaderboard(app, pilot)
        detail = pane.query_one("#leaderboard-detail", Static)
        first, second = list(pane.query(DataTable))  # lite / offline (the demo), lite / online
        assert app.screen.focused is first
        assert str(detail.render()) == f"{first.get_row_at(0)[1]} · run {demo}".replace(" †", "")
        second.focus()
        await settle(pilot)
        assert str(detail.render()) == f"{second.get_row_at(0)[1]} · run {online}".replace(" †", "")
        await pilot.press("down")
        await settle(pilot)
        assert str(detail.render()) == f"{second.get_row_at(1)[1]} · run {online}".replace(" †", "")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_a_reload_keeps_the_leaderboards_focus_and_its_cursor_on_its_model(two_runs, size):
    """docs/dashboard.md: a reload keeps the cursor on its model. The tables are made again; the focus
    stays on the table it was on, its cursor on the same run's model, and Enter still shows it."""
    demo, online, docs = two_runs
    app = both(demo, online)
    async with app.run_test(size=size) as pilot:
        pane = await open_leaderboard(app, pilot)
        detail = pane.query_one("#leaderboard-detail", Static)
        second = list(pane.query(DataTable))[1]  # lite / online
        second.focus()
        await pilot.press("down", "down")
        await settle(pilot)
        before = str(detail.render())
        assert before.endswith(f" · run {online}") and second.cursor_row == 2
        await pilot.press("r")
        await settle(pilot)
        await wait_until(
            pilot,
            lambda: second not in pane.tables and app.screen.focused in pane.tables,
            "tables made anew, one focused",
        )
        assert app.screen.focused is pane.tables[1] and pane.tables[1].cursor_row == 2
        assert str(detail.render()) == before
        await pilot.press("enter")
        await wait_until(pilot, lambda: tab_open(app, "overview"), "the Overview opened")
        assert app.current == 1 and app.selected_model == before.split(" · ")[0]


async def test_a_leaderboard_rebuild_never_takes_the_keyboard_back_from_the_filter(two_runs):
    """The focus kept across a rebuild goes back to a table only if the keyboard stayed where the rebuild
    left it: keys typed in the filter opened meanwhile stay there."""
    from textual.widgets import Input

    demo, online, docs = two_runs
    app = both(demo, online)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_leaderboard(app, pilot)
        list(pane.query(DataTable))[1].focus()
        await settle(pilot)
        pane.show(*pane.shown)  # a rebuild in flight (a reload, --watch), then the filter opened and typed in
        await pilot.press("slash", "d", "e")
        await settle(pilot)
        assert isinstance(app.screen.focused, Input) and app.screen.focused.value == "de"
        assert pane.place is None  # nothing left to take back later
        # a filter that leaves no row: the line under the tables names no model any more
        await pilot.press(*"zzz")
        await wait_until(pilot, lambda: not any(t.row_count for t in pane.tables), "no row left")
        await settle(pilot)
        assert str(pane.query_one("#leaderboard-detail", Static).render()) == ""


async def test_enter_on_a_leaderboard_row_shows_its_run_and_model(two_runs):
    demo, online, docs = two_runs
    app = both(demo, online)
    async with app.run_test(size=SIZE) as pilot:
        tables = list((await open_leaderboard(app, pilot)).query(DataTable))
        online_table = tables[1]  # lite / online
        keys = [online_table.coordinate_to_cell_key((i, 0)).row_key.value for i in range(online_table.row_count)]
        row = next(i for i, k in enumerate(keys) if str(online_table.get_row_at(i)[1]).startswith("delta-mini"))
        online_table.focus()
        online_table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        await wait_until(pilot, lambda: tab_open(app, "overview"), "the Overview opened")
        assert app.current == 1 and app.selected_model == "delta-mini"
        assert app.main.query_one("TabbedContent").active == "overview"
        overview = app.main.query_one("#overview-table", DataTable)
        assert overview.coordinate_to_cell_key(overview.cursor_coordinate).row_key.value == "delta-mini"
        follows_the_selection(app, "delta-mini")
        # a row of the run shown (the demo's borealis-8x22b, not the selected model): every tab follows too
        await switch_by_key(app, pilot, 0)
        await pilot.press("8")
        await settle(pilot)
        demo_table = app.main.query_one(LeaderboardPane).query(DataTable).first()
        row = next(i for i in range(demo_table.row_count) if str(demo_table.get_row_at(i)[1]).startswith("borealis"))
        demo_table.focus()
        demo_table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        await wait_until(pilot, lambda: tab_open(app, "overview"), "the Overview opened")
        assert app.current == 0 and app.selected_model == "borealis-8x22b"
        follows_the_selection(app, "borealis-8x22b")


def follows_the_selection(app, model: str) -> None:
    """The tabs that follow the selected model show ``model``: pass^k's title and Compare's A."""
    from textual.widgets import Select

    assert f"pass^k of {model} " in str(app.main.query_one("#passk-title").render())
    assert app.main.query_one("#compare-a", Select).value == model


async def test_a_second_enter_in_the_switcher_is_ignored(two_runs):
    # Enter twice in one burst (a paste, key repeat): the second RowSelected reached a screen being
    # dismissed and popped the main screen
    demo, online, _ = two_runs
    app = both(demo, online)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R", "down")
        await wait_until(
            pilot, lambda: switcher_shown(app) and app.screen.query_one(DataTable).cursor_row == 1, "the second run"
        )
        switcher = app.screen.query_one(DataTable)
        switcher.action_select_cursor()  # two RowSelected queued before the first is handled
        switcher.action_select_cursor()
        await settle(pilot)
        assert app.current == 1 and not isinstance(app.screen, RunsScreen)
        assert app.main.query_one("TabbedContent").active


async def test_tab_labels_follow_a_resize_at_once():
    from textual.widgets import Tab

    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(200, 50)
        await wait_until(pilot, lambda: app.size == (200, 50), "the resize to 200x50")
        assert "8 Leaderboard" in [str(t.label) for t in app.main.query(Tab)]
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: app.size == (80, 24), "the resize to 80x24")
        await pilot.pause()  # the tabs laid out at the new width
        labels = [str(t.label) for t in app.main.query(Tab)]
        assert "8 Board" in labels and all(t.region.right <= 80 for t in app.main.query(Tab))


async def test_a_model_twice_in_a_group_is_tables_rejection_in_the_tab_and_diagnostics(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(demo_run(), a)
    shutil.copytree(demo_run(), b)  # the same models, the same group lite/offline
    score(a, tmp_path / "a.json", capsys)
    score(b, tmp_path / "b.json", capsys)
    assert cli_main(["table", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    assert "a group takes each model once" in capsys.readouterr().err
    app = create_app(DashboardConfig(run_dir=str(a), more_runs=[str(b)]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("8")
        await settle(pilot)
        assert "Not a leaderboard" in text_of(app, "#leaderboard-summary")
        [(_, rows)] = leaderboard_tables(app)
        # the cells wrap where the run's folder (a temporary path of any length) ends: read them as words
        assert len(rows) == 3 and all("a group takes each model once" in " ".join(r[3].split()) for r in rows)
        assert {r[0] for r in rows} == {str(b)}
        assert "⚠ 3" in str(app.main.query_one("TabbedContent").get_tab("diagnostics").label)
        diag = app.main.query_one("#diagnostics-leaderboard", DataTable)
        assert diag.row_count == 3 and "a group takes each model once" in " ".join(str(diag.get_row_at(0)[3]).split())
        # every run tab still works
        assert app.main.query_one("#overview-table", DataTable).row_count == 3


@pytest.mark.parametrize("key, fmt", [("c", "markdown"), ("C", "latex")])
async def test_copy_on_the_leaderboard_is_tcsexam_table_over_every_run(
    two_runs, tmp_path, capsys, monkeypatch, key, fmt
):
    demo, online, docs = two_runs
    assert cli_main(["table", str(tmp_path / "demo.json"), str(tmp_path / "online.json"), "--format", fmt]) == 0
    expected = capsys.readouterr().out
    app = both(demo, online)
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("8")
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        app.main.query_one("#overview-table", DataTable).focus()
        await pilot.press(key)
        await settle(pilot)
    assert cli_main(["table", str(tmp_path / "demo.json"), "--format", fmt]) == 0
    alone = capsys.readouterr().out
    assert copied == [expected, alone] and expected != alone


async def test_reload_marks_only_the_rejected_run_stale_and_export_writes_the_run_shown(two_runs, tmp_path):
    demo, online, docs = two_runs
    out = tmp_path / "out" / "index.json"
    app = both(demo, online, output=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await reload_rejected(pilot, online / "attempts.csv")
        assert app.runs[1].stale is not None and app.runs[0].stale is None
        assert not app.sub_title.startswith("STALE")
        app.switch_run(1)
        await settle(pilot)
        assert app.sub_title.startswith("online · STALE: inputs rejected at ")  # the run's name first
        assert app.main.query_one("#diagnostics-table", DataTable).row_count == 1
        app.switch_run(0)
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
    written = json.loads(out.read_text())
    assert written["provenance"]["content_sha256"] == docs["demo"]["provenance"]["content_sha256"]


async def test_the_leaderboard_and_its_copy_name_a_stale_run(two_runs, monkeypatch):
    demo, online, _ = two_runs
    app = both(demo, online)
    monkeypatch.setattr(app, "copy_to_clipboard", lambda text: None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("8")
        await settle(pilot)
        assert "STALE" not in text_of(app, "#leaderboard-summary")
        attempts = online / "attempts.csv"
        attempts.write_text(attempts.read_text().replace("selected,valid", "selected,bogus", 1))
        await pilot.press("r")
        await settle(pilot)
        assert "STALE: online as last accepted" in text_of(app, "#leaderboard-summary")
        await pilot.press("c")
        await settle(pilot)
        last = notices(app)[-1]
        assert "STALE: online" in last.message and last.severity == "warning"


async def test_export_writes_the_run_shown_after_a_switch(two_runs, tmp_path):
    demo, online, docs = two_runs
    out = tmp_path / "out2" / "index.json"
    app = both(demo, online, output=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.switch_run(1)
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
    written = json.loads(out.read_text())
    assert written["provenance"]["content_sha256"] == docs["online"]["provenance"]["content_sha256"]


async def test_export_asks_before_overwriting_another_runs_export(two_runs, tmp_path):
    from tcsexam.tui.screens.confirm import ConfirmScreen

    demo, online, docs = two_runs
    out = tmp_path / "out3" / "index.json"
    app = both(demo, online, output=str(out))

    def written() -> str:
        return json.loads(out.read_text())["provenance"]["content_sha256"]

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert written() == docs["demo"]["provenance"]["content_sha256"]
        await pilot.press("e")  # the same run again: no question
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        app.switch_run(1)
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen) and "holds the export of run demo" in app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert written() == docs["demo"]["provenance"]["content_sha256"]  # nothing written
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert written() == docs["online"]["provenance"]["content_sha256"]


async def test_with_one_run_the_switcher_says_so():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await wait_until(pilot, lambda: len(notifications(app)), "a notification")
        assert not isinstance(app.screen, RunsScreen)
        assert any("Only one run" in m for m in notifications(app))
        assert "run 1/1" not in app.sub_title
        from tcsexam.tui.commands import DashboardCommands

        texts = [t for t, _, _ in DashboardCommands(app.screen)._commands()]
        assert not [t for t in texts if t.startswith("Switch to run")]


async def test_a_run_name_is_shown_as_data(tmp_path):
    hostile = tmp_path / "[bold red]x\x1b[2J"
    shutil.copytree(demo_run(), hostile)
    app = create_app(DashboardConfig(run_dir=str(hostile), more_runs=[str(demo_run())]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("[bold red]x\\x1b[2J · incomplete · lite/offline · run 1/2")
        header = str(app.main.query_one("HeaderTitle").render())
        assert "[bold red]x\\x1b[2J" in header and "\x1b" not in header


@pytest.mark.parametrize("rejected", [False, True])
async def test_all_eight_tab_labels_fit_80_columns(tmp_path, rejected):
    # the full labels take about 96 columns; below 110 three are shortened; with a problem count
    # on Diagnostics (⚠ N) they must still fit
    from textual.widgets import Tab

    config = DashboardConfig()
    if rejected:
        (tmp_path / "attempts.csv").write_text("model,track\nm,theorem\n")
        (tmp_path / "cohort.json").write_text('{"suite": "lite", "solver_protocol": "offline"}')
        config = DashboardConfig(run_dir=str(tmp_path))
    app = create_app(config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.pause()  # the tabs laid out with their labels (settle() ends with the load handled)
        tabs = list(app.main.query(Tab))
        assert len(tabs) == 8
        assert ("⚠" in str(tabs[6].label)) == rejected
        for tab in tabs:
            assert tab.region.width > 0 and tab.region.right <= 80, (str(tab.label), tab.region)
        app.action_tab("leaderboard")
        await settle(pilot)
        assert app.main.query_one("TabbedContent").active == "leaderboard"


# --- the command line ---------------------------------------------------------------------------


def test_cli_several_run_dirs_with_a_file_override_is_a_usage_error(tmp_path, cli):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    from tcsexam.tui.cli import main

    for option in ("--attempts", "--cohort", "--records"):
        code = main(["tui", str(a), str(b), option, str(tmp_path / "x")])
        assert code == 2


def test_cli_usage_errors_name_the_problem(tmp_path, capsys):
    from tcsexam.tui.cli import main

    (tmp_path / "a").mkdir()
    assert main(["tui", str(tmp_path / "a"), str(tmp_path / "a"), "--attempts", "x.csv"]) == 2
    assert "--attempts names the files of one run" in capsys.readouterr().err
    # a RUN_DIR that is not there is a missing input, exit 1 as for every command (docs/commands.md)
    assert main(["tui", str(tmp_path / "a"), str(tmp_path / "nope")]) == 1
    assert f"{tmp_path / 'nope'}: run directory not found" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["tui", str(tmp_path / "file"), str(tmp_path / "a")]) == 1
    assert f"{tmp_path / 'file'}: is not a folder" in capsys.readouterr().err


def test_cli_the_same_folder_twice_is_opened_once(tmp_path, capsys, monkeypatch):
    import tcsexam.tui.app
    from tcsexam.tui.cli import main

    a = tmp_path / "a"
    a.mkdir()
    (tmp_path / "link").symlink_to(a)
    b = tmp_path / "b"
    b.mkdir()
    opened = []

    class FakeApp:
        return_code = 0

        def run(self, loop=None):
            pass

    monkeypatch.setattr(tcsexam.tui.app, "create_app", lambda config, **_: opened.append(config) or FakeApp())
    assert main(["tui", str(a), str(b), str(tmp_path / "link")]) == 0
    assert f"RUN_DIR '{tmp_path / 'link'}' is the same folder as '{a}': opened once" in capsys.readouterr().err
    [config] = opened
    assert config.run_dir == str(a) and config.more_runs == [str(b)]


async def test_the_leaderboard_line_names_a_run_opened_as_dot_by_its_folder(tmp_path, monkeypatch):
    """`tcsexam tui .`: the line under the tables names the run's folder, not only '.'."""
    run = tmp_path / "lab-run"
    shutil.copytree(demo_run(), run)
    monkeypatch.chdir(run)
    app = create_app(DashboardConfig(run_dir="."))
    async with app.run_test(size=(100, 30)) as pilot:
        pane = await open_leaderboard(app, pilot)
        detail = str(pane.query_one("#leaderboard-detail", Static).render())
        assert detail.endswith(" · run lab-run (.)"), detail


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_last_row_of_a_long_table_brings_its_notes_into_view(tmp_path, size):
    """A review joined the demo and a 60-model run of the same suite: the note that ranks are each file's
    sat under a table taller than the tab, out of the keyboard's reach. The cursor on the last row now
    scrolls it into view."""
    from tests.bench.synth import write_run

    demo = tmp_path / "demo"
    shutil.copytree(demo_run(), demo)
    write_run(tmp_path / "run60", models=60, attempts=1, suite_name="lite")
    app = create_app(DashboardConfig(run_dir=str(demo), more_runs=[str(tmp_path / "run60")], cache=False))
    async with app.run_test(size=size) as pilot:
        pane = await open_leaderboard(app, pilot)
        await wait_until(pilot, lambda: pane.tables and pane.tables[0].row_count == 63, "both runs in one table")
        await settle(pilot)
        body = pane.query_one("#leaderboard-groups")
        (table,) = pane.tables
        note = next(n for n in pane.query(".leaderboard-note") if "within each file's models" in str(n.render()))

        def in_view() -> bool:
            top, height = body.scroll_offset.y, body.scrollable_content_region.height
            return top <= note.virtual_region.y and note.virtual_region.bottom <= top + height

        assert not in_view()  # under the 63 rows
        table.move_cursor(row=table.row_count - 2)
        await settle(pilot)
        assert not in_view()  # the row before the last: the notes wait
        await pilot.press("down")
        await settle(pilot)
        assert in_view() and table.cursor_row == table.row_count - 1


async def test_a_resize_keeps_the_leaderboards_cursor_row_in_view(tmp_path):
    """A review pressed G on a 60-model Leaderboard at 200x50 and made the terminal 80x24: the line under
    the tables named model-050 while the rows shown were others."""
    from tests.bench.synth import write_run
    from tests.support.dashboard import screen_text

    write_run(tmp_path / "run60", models=60, attempts=1, suite_name="lite")
    app = create_app(DashboardConfig(run_dir=str(tmp_path / "run60"), cache=False))
    async with app.run_test(size=(200, 50)) as pilot:
        pane = await open_leaderboard(app, pilot)
        (table,) = pane.tables
        await pilot.press("G")
        await settle(pilot)
        last = str(table.get_row_at(table.cursor_row)[1])
        assert table.cursor_row == table.row_count - 1 and last in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        rows = [line for line in screen_text(app).splitlines() if line.lstrip().startswith(("1–", "2–", "3–"))]
        assert any(f" {last} " in line for line in rows), screen_text(app)
