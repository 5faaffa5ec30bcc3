"""Dashboard behaviour, driven headless with Pilot."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from textual.widgets import DataTable, Input, Select, Static, TabbedContent

from tcsexam.scoring.commands.main import main as cli_main
from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.tui.app import create_app
from tcsexam.tui.panes.instances.pane import InstancesPane
from tcsexam.tui.panes.instances.table import InstanceTable
from tcsexam.tui.panes.overview.pane import OverviewPane
from tcsexam.tui.screens.attempts import AttemptsScreen
from tcsexam.tui.screens.help import HelpScreen
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import (
    cli_compare,
    notifications,
    row_at,
    run_command,
    screen_lines,
    select_options,
    settle,
    wait_until,
)

SIZE = (140, 45)
DATA = Path(__file__).resolve().parent / "data" / "tau2"


def text_of(app, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def test_opens_the_demo_and_names_the_top_group_not_a_leader():
    # the demo's index.json ranks atlas-70b (76.91) and borealis-8x22b (55.25) both 1-2: their paired
    # index difference is not separated at 95% after Holm, so no leader is named (docs/rules.md#ranks)
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        assert table.row_count == 3
        summary = text_of(app, "#overview-summary")
        assert (
            "Leader:" not in summary
            and "No single leader: 2 share rank 1 among models with an index (2 of 3)" in summary
        )
        first = row_at(table, 0)
        assert first[0] == "atlas-70b" and first[2].startswith("76.91") and first[4] == "1–2"
        assert row_at(table, 1)[4] == "1–2" and str(table.get_row("cirrus-mini")[4]) == "—"
        assert str(app.query_one("#overview-table", DataTable).get_row("cirrus-mini")[2]) == "—"


async def test_opens_a_packed_run_and_reads_its_instances_from_the_packed_file(demo_copy, tmp_path):
    # docs/formats.md#packed-records: the dashboard loads records.jsonl through the same loader
    assert cli_main(["pack", str(demo_copy)]) == 0
    (demo_copy / "records").rename(tmp_path / "records-moved")
    with (demo_copy / "records.jsonl").open("a") as packed:  # a line no row uses: listed, as its file would be
        packed.write('{"model": "ghost", "item": "sat-race", "attempt": "1", "records": []}\n')
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        unused = app.state.document["unused_records"]
        assert [(u["file"], u["reason"]) for u in unused] == [
            ("ghost/sat-race/1.json", "model 'ghost' is not in the cohort")
        ]
        table = app.query_one("#overview-table", DataTable)
        assert table.row_count == 3
        first = row_at(table, 0)
        assert first[0] == "atlas-70b" and first[2].startswith("76.91")
        await pilot.press("3")
        await settle(pilot)
        pane = app.query_one(InstancesPane)
        assert pane.columns is not None and len(pane.columns) > 0  # one attempt's records, from records.jsonl
        packed = app.state.document["provenance"]["inputs"]["records"]
        assert packed["path"] == str((demo_copy / "records.jsonl").resolve()) and packed["files"] == 25


async def test_selecting_a_model_reaches_the_other_panes():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#overview-table", DataTable).focus()
        await pilot.press("down")
        await settle(pilot)
        assert app.selected_model == "borealis-8x22b"
        assert "borealis-8x22b" in text_of(app, "#passk-title")
        options = [str(o[0]) for o in select_options(app.query_one("#instances-attempt", Select)) if str(o[0])]
        assert options and all(" · " in o for o in options)
        assert app.query_one(InstancesPane).key[0] == "borealis-8x22b"


async def test_overview_sorts_by_any_column():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        table.focus()

        def order():
            return [row_at(table, i)[0] for i in range(table.row_count)]

        assert order() == ["atlas-70b", "borealis-8x22b", "cirrus-mini"]  # index, descending, null last
        await pilot.press("S")
        assert order() == ["borealis-8x22b", "atlas-70b", "cirrus-mini"]  # ascending, null still last
        pane = app.query_one(OverviewPane)
        pane.sort_by(7)  # C (construction), as the sort picker (s) picks it: high first
        await pilot.pause()
        assert order()[0] == "atlas-70b" and order()[-1] == "cirrus-mini"
        await pilot.click("#overview-table", offset=(4, 0))  # header "Model"
        await pilot.pause()
        assert order() == ["atlas-70b", "borealis-8x22b", "cirrus-mini"]


async def test_coverage_shows_the_missing_attempts_and_opens_a_task():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        grid = app.query_one("#coverage-grid", DataTable)
        assert str(grid.get_row("con-expander")[3]) == "0/1"
        assert str(grid.get_row("thm-ramsey-bound")[3]) == "✗"
        issues = app.query_one("#issues-table", DataTable)
        rows = [row_at(issues, i) for i in range(issues.row_count)]
        assert ["cirrus-mini", "con-expander", "—", "incomplete", "1 of 1 planned attempts missing"] in rows
        grid.focus()
        grid.move_cursor(row=grid.get_row_index("thm-pcp-gap"), column=1)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AttemptsScreen)
        attempts = app.screen.query_one(DataTable)
        statuses = [row_at(attempts, i)[2] for i in range(attempts.row_count)]
        assert statuses.count("excluded") == 1 and statuses.count("selected") == 3
        await pilot.press("escape")
        assert not isinstance(app.screen, AttemptsScreen)


async def test_instances_sort_filter_and_jump():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        pane = app.query_one(InstancesPane)
        table = app.query_one(InstanceTable)
        cols = pane.columns
        assert cols is not None and len(table.order) == len(cols)
        pane.sort("phi", True)
        await settle(pilot)
        assert cols.phi[table.order[0]] == cols.phi.max()
        assert np.all(np.diff(cols.phi[table.order]) <= 0)
        pane.filter_status("ok")
        await settle(pilot)
        assert np.all(cols.status[table.order] == 0)
        target = cols.name(len(cols) // 2)
        await pilot.press("slash")
        await pilot.press(*target, "enter")
        await pilot.pause()
        assert cols.name(table.current_row()) == target
        assert f" · {target}: " in text_of(app, "#instances-detail")
        await pilot.press("down")
        await pilot.pause()
        assert table.cursor >= 1


async def test_export_matches_tcsexam_score(tmp_path, demo_copy):
    out_tui = tmp_path / "tui" / "index.json"
    out_cli = tmp_path / "cli" / "index.json"
    app = create_app(DashboardConfig(run_dir=str(demo_copy), output=str(out_tui)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
    assert cli_main(["score", str(demo_copy), "--output", str(out_cli)]) == 3
    a, b = json.loads(out_tui.read_text()), json.loads(out_cli.read_text())
    assert a["provenance"]["content_sha256"] == b["provenance"]["content_sha256"]
    assert a["status"] == "incomplete"


@pytest.mark.parametrize("target", ["attempts.csv", "records"])
async def test_export_never_writes_over_an_input_or_a_folder(demo_copy, target):
    # docs/safety.md: the dashboard's export is checked like every command's --output
    out = demo_copy / target
    before = out.read_bytes() if out.is_file() else None
    app = create_app(DashboardConfig(run_dir=str(demo_copy), output=str(out)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        shown = notifications(app)
    assert any("Export refused" in m for m in shown), shown
    assert out.read_bytes() == before if before is not None else out.is_dir()


async def test_reload_picks_up_changes_and_keeps_last_good_state_on_bad_input(demo_copy):
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state.document["models"]["cirrus-mini"]["status"] == "incomplete"
        csv = demo_copy / "attempts.csv"
        original = csv.read_text()
        csv.write_text(
            original.replace(
                "cirrus-mini,theorem,thm-ramsey-bound,1,,selected,judge_failed",
                "cirrus-mini,theorem,thm-ramsey-bound,1,1,selected,valid",
            )
        )
        await pilot.press("r")
        await settle(pilot)
        assert app.state.document["models"]["cirrus-mini"]["coverage"]["not_valid"] == []
        good = app.state
        csv.write_text(original.replace("selected,valid", "selected,bogus", 1))
        await pilot.press("r")
        await settle(pilot)
        assert app.state is good  # the last good state stays
        assert "bogus" in app.problems_text and "attempts.csv" in app.problems_text


async def test_bad_inputs_open_diagnostics_with_validate_words(tmp_path, demo_copy, capsys):
    cohort = demo_copy / "cohort.json"
    cohort.write_text(cohort.read_text().replace('"offline"', '"sideways"'))
    cli_main(["validate", str(demo_copy)])
    validate_err = capsys.readouterr().err.strip()
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state is None
        assert app.query_one("TabbedContent").active == "diagnostics"
        table = app.query_one("#diagnostics-table", DataTable)
        assert table.row_count == 1
        file, where, field, message = row_at(table, 0)
        # the table holds the words of validate: file (relative to the run), field and message
        assert file == "cohort.json" and field == "solver_protocol"
        assert f"{demo_copy / 'cohort.json'}: field 'solver_protocol': {message}" in validate_err
        await pilot.press("e")  # nothing to export: a notification, no crash
        await pilot.pause()


async def test_watch_survives_a_half_written_file(demo_copy):
    app = create_app(DashboardConfig(run_dir=str(demo_copy), watch=True), watch_debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        csv = demo_copy / "attempts.csv"
        full = csv.read_text()
        csv.write_text(full[: len(full) // 2].rsplit(",", 3)[0])  # caught half-written: a broken last row
        await wait_until(pilot, lambda: app.problems_text, "the half-written file's problem shown")
        await settle(pilot)
        assert app.problems_text and app.state is not None
        csv.write_text(
            full.replace(
                "cirrus-mini,theorem,thm-ramsey-bound,1,,selected,judge_failed",
                "cirrus-mini,theorem,thm-ramsey-bound,1,1,selected,valid",
            )
        )
        await wait_until(pilot, lambda: app.problems_text is None, "the mended file read without a problem")
        await settle(pilot)
        assert app.problems_text is None
        assert app.state.document["models"]["cirrus-mini"]["coverage"]["not_valid"] == []


async def test_help_and_quit():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("q")
    assert app.return_code == 0


async def test_command_palette_jumps_to_a_task():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await run_command(pilot, "Jump to task con-expander")
        grid = app.query_one("#coverage-grid", DataTable)
        assert app.query_one("TabbedContent").active == "coverage"
        assert grid.coordinate_to_cell_key(grid.cursor_coordinate).row_key.value == "con-expander"
        from tcsexam.tui.commands import DashboardCommands

        texts = [t for t, _, _ in DashboardCommands(app.screen)._commands()]
        assert "Export index.json" in texts and "Jump to model cirrus-mini" in texts


async def test_compare_view_gives_the_paired_difference():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await pilot.pause()
        table = app.query_one("#compare-table", DataTable)
        assert table.row_count == 5 and row_at(table, 4)[0] == "Index (points)"
        assert "Index difference" in text_of(app, "#compare-verdict")


async def test_compare_view_keeps_its_pair_when_a_pickers_blank_line_is_picked():
    """Two reviews picked B's blank line ("model B", the first line of its list): once the tables emptied
    with the verdict of the pair before left standing, then the tab emptied and B stopped following A.
    The blank line picks nothing: the pair stays, compared, and B still follows A."""
    from textual.widgets import Select

    from tests.support.dashboard import open_tab

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_tab(pilot, "5")
        pane = app.query_one("ComparePane")
        pair = pane.pair()
        verdict = text_of(app, "#compare-verdict")
        assert pair is not None and "Index difference" in verdict
        for picker in ("#compare-b", "#compare-a"):
            app.query_one(picker, Select).clear()  # the blank line, as Enter on it picks it
            await settle(pilot)
            assert pane.pair() == pair and text_of(app, "#compare-verdict") == verdict
            assert app.query_one("#compare-table", DataTable).row_count == 5
        app.select_model("cirrus-mini")
        await settle(pilot)
        assert not pane.b_chosen and pane.pair() == ("cirrus-mini", "borealis-8x22b")  # B follows A still


async def test_compare_view_names_the_track_with_no_common_task(ws):
    # A has neither construction task (docs/rules.md#per-task-differences): no paired index difference
    from tests.support.runs import full_rows

    ws.write_cohort(models={"A": {"attempts_per_task": 1}, "B": {"attempts_per_task": 1}})
    ws.write_rows([r for r in full_rows("A") if r["track"] != "construction"] + full_rows("B"))
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench), cache=False))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        verdict = " ".join(text_of(app, "#compare-verdict").split())
        assert (
            "No construction task is scored by both models, so the paired index difference is not computed." in verdict
        )


@pytest.mark.skipif(not DATA.is_dir(), reason="tests/data/tau2 is missing")
async def test_tau2_tab_shows_the_metrics():
    app = create_app(DashboardConfig(tau2=str(DATA / "derived" / "derived_C_edge_4x5.json")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.query_one("TabbedContent").active == "tau2"
        tasks = app.query_one("#tau2-tasks", DataTable)
        assert tasks.row_count == 5
        assert all(row_at(tasks, i)[0].startswith("[mobile_data_issue]") for i in range(5))  # not read as markup
        assert app.query_one("#tau2-audit", DataTable).row_count == len(app.tau2_metrics["audit"]) > 0
        assert "avg_reward 0.605, avg_agent_cost $" in text_of(app, "#tau2-summary")  # 3 decimals; cost in dollars


@pytest.mark.skipif(not DATA.is_dir(), reason="tests/data/tau2 is missing")
async def test_a_tau2_file_read_while_its_tab_is_hidden_fills_the_task_table_at_the_tabs_width():
    """A review saw the tau2 tab without its task table: read while the tab was hidden, the table waited
    for a Resize, which a tab shown while the screen lays out a scroll never gets. It is filled when
    the file is read, at the width the tab will have, and the same once the tab is shown."""
    app = create_app(DashboardConfig(run_dir=str(demo_run()), tau2=str(DATA / "derived" / "derived_C_edge_4x5.json")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.query_one("TabbedContent").active == "overview" and app.tau2_metrics is not None
        tasks = app.query_one("#tau2-tasks", DataTable)
        assert tasks.size.width == 0 and tasks.row_count == 5  # hidden, and filled
        hidden = [row_at(tasks, i) for i in range(5)]
        await pilot.press("6")
        await settle(pilot)
        assert tasks.size.width == SIZE[0] - 2 and [row_at(tasks, i) for i in range(5)] == hidden


@pytest.mark.skipif(not DATA.is_dir(), reason="tests/data/tau2 is missing")
async def test_with_a_tau2_file_alone_no_tab_waits_for_a_run_and_no_run_key_is_offered():
    """docs/dashboard.md: with --tau2 alone every run tab, the Leaderboard too, says there is no run;
    export and the run switcher are not offered (footer, help) and their keys do nothing."""
    from tcsexam.tui.screens.help import HelpScreen

    app = create_app(DashboardConfig(tau2=str(DATA / "derived" / "derived_C_edge_4x5.json")))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("8")
        await settle(pilot)
        assert text_of(app, "#leaderboard-summary").startswith("No run: the dashboard was started with --tau2 only")
        footer = " ".join(screen_lines(app)[-1:])
        assert "Export" not in footer and "Runs" not in footer and "Quit" in footer
        screens = len(app.screen_stack)
        await pilot.press("E", "R", "e")
        await settle(pilot)
        assert len(app.screen_stack) == screens and not notifications(app)  # nothing opened, nothing said
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "Export to" not in shown and "run switcher" not in shown


async def test_diagnostics_says_what_an_accepted_runs_load_said_on_the_side(demo_copy, tmp_path):
    """A run without records whose cohort names a reference the benchmark lacks is scored, with a warning
    on standard error from the commands (docs/formats.md): the dashboard says it under Diagnostics."""
    import csv
    import json
    import shutil

    from tcsexam.scoring.pipeline.benchmark import sample_root

    bench = tmp_path / "bench"
    shutil.copytree(sample_root() / "benchmark", bench)
    cohort = json.loads((demo_copy / "cohort.json").read_text())
    cohort["solver_reference_id"] = "mylab-k3"
    (demo_copy / "cohort.json").write_text(json.dumps(cohort))
    shutil.rmtree(demo_copy / "records")
    with open(demo_copy / "attempts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(demo_copy / "attempts.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**r, "reference_id": ""} for r in rows)
    app = create_app(DashboardConfig(run_dir=str(demo_copy), benchmark=str(bench)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state is not None
        shown = text_of(app, "#diagnostics-text")
        assert shown.startswith("Accepted with 4 warnings (below)")  # cirrus-mini's scores not checked, and more
        assert "solver_reference_id 'mylab-k3'" in shown and "cannot be re-scored against it" in shown


@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "loader-process"])
async def test_diagnostics_shows_the_warnings_score_prints_of_an_accepted_run(demo_copy, cli, isolate):
    """A construction score written as a percentage (88.12 for 0.8812) is legal and scored, and ``score``
    warns of it on standard error: the dashboard shows the same warning under Diagnostics, whether the run
    is scored in its process or in a loader process; and no longer once the score is mended (r)."""
    table = demo_copy / "attempts.csv"
    text = table.read_text()
    assert text.count(",0.8812,") == 1  # the demo's atlas-70b con-cap-set attempt 1
    table.write_text(text.replace(",0.8812,", ",88.12,"))
    code, _, err = cli("score", str(demo_copy), "--output", str(demo_copy / "build" / "i.json"))
    warned = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert code in (0, 3) and len(warned) == 1 and "88.12" in warned[0] and "a percentage?" in warned[0]
    app = create_app(DashboardConfig(run_dir=str(demo_copy), isolate=isolate))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state is not None
        shown = text_of(app, "#diagnostics-text")
        assert shown.startswith("Accepted with 1 warning (below): the inputs are legal; check what each says")
        assert warned[0] in shown.splitlines()
        tab = app.main.query_one(TabbedContent).get_tab("diagnostics")
        assert str(tab.label).endswith(" ⚠ 1")  # seen from every tab
        table.write_text(text)
        await pilot.press("r")
        await settle(pilot)
        mended = text_of(app, "#diagnostics-text")
        assert "88.12" not in mended and mended.startswith("No problems: the inputs were accepted.")
        assert "⚠" not in str(tab.label)


async def test_bad_tau2_file_does_not_crash(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text("{")
    app = create_app(DashboardConfig(tau2=str(bad)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "rejected" in text_of(app, "#tau2-summary")


async def test_large_runs_load_in_a_helper_process(demo_copy):
    """The helper-process path gives the same state, and brings rejected inputs back as problems."""
    app = create_app(DashboardConfig(run_dir=str(demo_copy), isolate=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)  # it fails unless the load is done
        assert app.state is not None and app.state.document["status"] == "incomplete"
        await pilot.press("3")
        await settle(pilot)
        assert app.query_one(InstancesPane).columns is not None
        (demo_copy / "cohort.json").write_text("{")
        await pilot.press("r")
        await settle(pilot)
        assert app.problems_text and "invalid JSON" in app.problems_text


async def test_a_packed_run_loaded_in_a_helper_process_reads_its_lines_here(demo_copy, tmp_path):
    """A packed run's records cross back from the loader process as the places of its lines, and the
    dashboard reads a line from the packed file itself (docs/formats.md#packed-records)."""
    assert cli_main(["pack", str(demo_copy)]) == 0
    (demo_copy / "records").rename(tmp_path / "records-moved")
    app = create_app(DashboardConfig(run_dir=str(demo_copy), isolate=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state is not None and app.state.document["provenance"]["inputs"]["records"]["files"] == 25
        root = app.state.run.records_root
        path, data = root.read("cirrus-mini", "sat-race", "1")
        expected = (tmp_path / "records-moved" / "cirrus-mini" / "sat-race" / "1.json").read_text()
        assert data is not None and json.loads(data) == json.loads(expected)


def test_large_input_threshold(demo_copy):
    from tcsexam.tui.loader import LARGE_INPUT_BYTES, input_bytes
    from tcsexam.tui.state import resolve_paths

    size = input_bytes(resolve_paths(DashboardConfig(run_dir=str(demo_copy))))
    assert 0 < size < LARGE_INPUT_BYTES  # the demo loads in-process; 10^6 records (50 MB) do not


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_rank_column_at_the_smallest_and_a_large_size(size):
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        labels = [str(c.label) for c in table.columns.values()]
        assert labels[4] == "Rank" and labels[5] == "Uncertainty from"  # the rank before the 17-column shares
        assert [str(table.get_row(m)[4]) for m in ("atlas-70b", "borealis-8x22b", "cirrus-mini")] == ["1–2", "1–2", "—"]
        # atlas-70b's index.json shares: theorem 0.198, solver 0.010, construction 0.703, conjecture 0.088
        assert str(table.get_row("atlas-70b")[5]) == "P20 S1 C70 O9 %"
        assert "2 share rank 1" in text_of(app, "#overview-summary")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_compare_lists_the_task_differences_of_tcsexam_compare_largest_first(size, capsys):
    expected = cli_compare(demo_run(), "atlas-70b", "borealis-8x22b", capsys)
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        tasks = app.query_one("#compare-tasks", DataTable)
        assert tasks.row_count == len(expected["tasks"]) == 20
        shown = [row_at(tasks, i) for i in range(tasks.row_count)]
        by_item = {t["item"]: t for t in expected["tasks"]}
        per_track = Counter(t["track"] for t in expected["tasks"])
        # each task's share of the index difference: A − B × its track's weight ÷ the track's common tasks
        weights = {"theorem": 30, "solver": 30, "construction": 30, "conjecture": 10}  # docs/rules.md#the-index
        points = {i: t["difference"] * weights[t["track"]] / per_track[t["track"]] for i, t in by_item.items()}
        assert sum(points.values()) == pytest.approx(expected["index"]["value"], abs=1e-9)
        sizes = [abs(points[r[0]]) for r in shown]
        assert sizes == sorted(sizes, reverse=True)  # the largest share first
        for r in shown:
            assert r[2] == f"{points[r[0]]:+.2f}"
            assert r[5] == f"{by_item[r[0]]['difference']:+.3f}"
            c = expected["instances"].get(r[0])
            assert r[6] == ("—" if c is None else f"{c['a_better']} / {c['b_better']} / {c['equal']}")
        # the five solver tasks of the demo have records for both models
        assert sum(r[6] != "—" for r in shown) == 5 == len(expected["instances"])
        # every column on screen, the instance counts last (once off screen at 80 columns): a solver row's
        # cells read in order on one line of the terminal
        first = next(r for r in shown if r[6] != "—")
        tasks.move_cursor(row=shown.index(first))
        await settle(pilot)
        pattern = r"\s+".join(re.escape(cell) for cell in first)
        assert any(re.search(pattern, line) for line in screen_lines(app)), first
        assert text_of(app, "#compare-mde").startswith("Smallest detectable gap")


async def test_enter_on_a_solver_task_lists_the_instances_that_differ_most(capsys):
    from tcsexam.tui.panes.compare.instance_diffs import InstanceDiffsScreen

    counts = cli_compare(demo_run(), "atlas-70b", "borealis-8x22b", capsys)["instances"]["sat-race"]
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        tasks = app.query_one("#compare-tasks", DataTable)
        tasks.focus()
        tasks.move_cursor(row=tasks.get_row_index("sat-race"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, InstanceDiffsScreen)
        table = app.screen.query_one("#instance-diffs-table", DataTable)
        rows = [row_at(table, i) for i in range(table.row_count)]
        # every unequal instance (a_better + b_better <= 20 here), none of the equal ones
        assert len(rows) == counts["a_better"] + counts["b_better"]
        assert sum(float(r[3]) > 0 for r in rows) == counts["a_better"]
        for r in rows:  # A − B is the difference of the two columns shown
            assert abs(float(r[1]) - float(r[2]) - float(r[3])) <= 1e-4
        sizes = [abs(float(r[3])) for r in rows]
        assert sizes == sorted(sizes, reverse=True)
        await pilot.press("escape")
        # a theorem task has no instances: a note, no screen
        tasks.move_cursor(row=tasks.get_row_index("thm-pcp-gap"))
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, InstanceDiffsScreen)


def cli_plan(run: Path, target: float, capsys) -> dict:
    """`tcsexam plan`'s JSON: the oracle the planning section must match."""
    capsys.readouterr()
    cli_main(["plan", str(run), "--target", str(target), "--output", "-"])
    out = capsys.readouterr().out
    return json.loads(out[out.index("{") :])


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_planning_shows_tcsexam_plan_and_the_attempts_a_target_needs(size, capsys):
    plan = cli_plan(demo_run(), 10.0, capsys)["models"]["atlas-70b"]
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        table = app.query_one("#plan-table", DataTable)
        row = row_at(table, 0)
        assert row[0] == "half-width" and len(row) == 11
        assert row[1:] == [f"{plan['half_width'][str(r)]:.2f}" for r in range(1, 11)]
        assert "atlas-70b" in text_of(app, "#plan-title") and "P20 S1 C70 O9 %" in text_of(app, "#plan-title")
        assert text_of(app, "#plan-needed").startswith("Type a target")
        # the line wraps: a review saw 'Type a target half-width H (index points) to see the' and no more
        on_screen = " ".join(" ".join(screen_lines(app)).split())
        assert "to see the attempts per task it needs." in on_screen
        # one Tab from the pass^k table reaches the field, as the docs say (a review: the first Tab went to the
        # planner's table, invisibly, and the digits typed next switched tabs)
        assert app.screen.focused is app.query_one("#passk-table")
        await pilot.press("tab")
        await settle(pilot)
        assert app.screen.focused is app.query_one("#plan-target")
        await pilot.press("1", "0")
        await settle(pilot)
        needed = plan["attempts_for_target"]
        assert needed is not None and text_of(app, "#plan-needed") == f"H = 10: {needed} attempts per task."
        # the typed digits went to the field, not to the tab keys
        assert app.query_one("TabbedContent").active == "passk"
        # escape and Enter give the keyboard back to the tab's table, the target kept
        for key in ("escape", "enter"):
            app.query_one("#plan-target").focus()
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            assert app.screen.focused is app.query_one("#passk-table")
            assert text_of(app, "#plan-needed") == f"H = 10: {needed} attempts per task."
        # the selection moves: the plan follows the model
        app.select_model("borealis-8x22b")
        await settle(pilot)
        assert "borealis-8x22b" in text_of(app, "#plan-title")


async def test_q_quits_from_the_target_field_which_a_number_cannot_hold():
    """docs/dashboard.md: q quits everywhere; the target field takes only what a number holds."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        app.query_one("#plan-target").focus()
        await pilot.press("1", "2")
        await settle(pilot)
        assert app.query_one("#plan-target", Input).value == "12"
        await pilot.press("q")
    assert app.return_code == 0


@pytest.mark.parametrize("key, fmt", [("c", "markdown"), ("C", "latex")])
async def test_copy_from_the_overview_equals_tcsexam_table(key, fmt, tmp_path, capsys, monkeypatch):
    # the oracle: score the demo to a file, then `tcsexam table` on that file
    index = tmp_path / "index.json"
    cli_main(["score", str(demo_run()), "--output", str(index)])
    capsys.readouterr()
    assert cli_main(["table", str(index), "--format", fmt, "--output", "-"]) == 0
    expected = capsys.readouterr().out
    app = create_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#overview-table", DataTable).focus()
        await pilot.press(key)
        await settle(pilot)
    assert len(copied) == 1 and copied[0].strip() == expected.strip()
    assert ("| 1–2 | atlas-70b |" in copied[0]) if fmt == "markdown" else ("\\toprule" in copied[0])


async def test_copy_commands_are_in_the_palette():
    from tcsexam.tui.commands import DashboardCommands

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        texts = [t for t, _, _ in DashboardCommands(app.screen)._commands()]
        assert "Copy table as Markdown" in texts and "Copy table as LaTeX" in texts


async def test_diagnostics_of_an_accepted_run_with_findings_points_to_coverage(cli):
    """The demo's Diagnostics said "No problems: the inputs were accepted." while `tcsexam validate` lists
    6 findings of it, an ignored row among them (a new user's review): it says how many, and where
    the dashboard shows them."""
    app = create_app(DashboardConfig(run_dir=str(demo_run())))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        text = str(app.main.query_one("#diagnostics-text").render())
    code, out, _ = cli("validate", str(demo_run()))
    count = int(out.splitlines()[0].rsplit(", ", 1)[1].split()[0])  # "..., 6 findings"
    assert code == 3 and count == 6
    assert text.startswith("No problems: the inputs were accepted. tcsexam validate lists 6 findings of the run")
    assert "Coverage (2) shows each" in text


async def test_the_line_under_the_overview_keeps_the_rank_whole_at_80_columns():
    """At 80×24 the line read '… (95%: 66.41 to 87.42) · rank 1–2 o…' (a review): the rank comes before
    the interval's ends, which are what a short line cuts. The demo ranks two models, both 1–2."""
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        (line,) = [line.strip() for line in screen_lines(app) if line.strip().startswith("atlas-70b · complete")]
        assert " · rank 1–2 of 2 · 95%: 66.41 to 8" in line, line
