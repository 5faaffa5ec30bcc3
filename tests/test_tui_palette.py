"""The palette's commands (compare, filter instances, open a tau2 file), the remembered theme and the
--watch marker in the header, driven headless with Pilot."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from textual.widgets import Input, Select, Static

from tcsexam.tui.app import create_app
from tcsexam.tui.help_text import PALETTE
from tcsexam.tui.panes import PANES
from tcsexam.tui.panes.instances.pane import InstancesPane
from tcsexam.tui.panes.instances.table import InstanceTable
from tcsexam.tui.screens.open_tau2 import OpenTau2Screen
from tcsexam.tui.settings import config_path
from tcsexam.tui.state import STATUS_CODES, DashboardConfig
from tests.support.dashboard import notifications, palette_hits, run_command, settle, wait_until

SIZE = (140, 45)
DATA = Path(__file__).resolve().parent / "data" / "tau2"
# tau2-bench's own avg_reward of two real runs (tests/data/tau2/PROVENANCE.md, as in test_tau2.py)
GPT41 = "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"  # 0.8
QWEN = "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json"  # 0.18
needs_tau2 = pytest.mark.skipif(not DATA.is_dir(), reason="tests/data/tau2 is missing")


def text_of(app, selector: str) -> str:
    return str(app.main.query_one(selector, Static).render())


def notes(app) -> list[str]:
    return notifications(app)


# --- Compare <selected> vs <model> -------------------------------------------------------------


async def test_compare_command_sets_the_pair_and_opens_compare():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.selected_model == "atlas-70b"  # the Overview's top row
        shown = await run_command(pilot, "Compare ", enter=False)
        compares = sorted(p for p in shown if p.startswith("Compare "))
        # one per other model, A being the selection (the demo has 3 models: 2 hits, not 6 ordered pairs)
        assert compares == ["Compare atlas-70b vs borealis-8x22b", "Compare atlas-70b vs cirrus-mini"]
        await pilot.press("escape")
        await pilot.pause()
        await run_command(pilot, "Compare atlas-70b vs cirrus-mini")
        pane = app.main.query_one("ComparePane")
        assert pane.pair() == ("atlas-70b", "cirrus-mini")
        assert app.main.query_one("TabbedContent").active == "compare"
        await settle(pilot)
        assert pane.result is not None and text_of(app, "#compare-verdict").startswith(
            "A atlas-70b − B cirrus-mini: cirrus-mini is incomplete"
        )


async def test_compare_command_follows_the_selected_model():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_model("cirrus-mini")
        await settle(pilot)
        await run_command(pilot, "Compare cirrus-mini vs borealis")
        assert app.main.query_one("ComparePane").pair() == ("cirrus-mini", "borealis-8x22b")
        from tcsexam.tui.commands import DashboardCommands

        texts = [t for t, _, _ in DashboardCommands(app.screen)._commands()]
        assert not any(t.startswith("Compare atlas-70b") for t in texts)


# --- Filter instances: <status> ----------------------------------------------------------------


async def test_filter_command_filters_the_instances_and_opens_the_tab():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        from tcsexam.tui.commands import DashboardCommands

        texts = [t for t, _, _ in DashboardCommands(app.screen)._commands()]
        assert [t for t in texts if t.startswith("Filter instances: ")] == [
            "Filter instances: all statuses",
            *(f"Filter instances: {s}" for s in STATUS_CODES),
        ]
        pane = app.main.query_one(InstancesPane)
        app.main.query_one("#instances-task", Select).value = "tsp-concorde"
        await settle(pilot)
        app.main.query_one("#instances-attempt", Select).value = "1"
        await settle(pilot)
        await run_command(pilot, "Filter instances: crash")
        await settle(pilot)
        assert app.main.query_one("TabbedContent").active == "instances"
        # the demo's records/atlas-70b/tsp-concorde/1.json: 35 ok and 2 crash records, of which TSP0037
        # (ok) is not in the reference (unscored): 36 scored instances, 2 of them crash
        order = app.main.query_one(InstanceTable).order
        assert len(order) == 2 and {STATUS_CODES[pane.columns.status[i]] for i in order} == {"crash"}
        await run_command(pilot, "Filter instances: all statuses")
        await settle(pilot)
        assert len(app.main.query_one(InstanceTable).order) == 36
        assert app.main.query_one("#instances-filter", Select).value == -1


# --- Open tau2 results… ------------------------------------------------------------------------


async def open_tau2(pilot, path: str | None) -> None:
    """The palette's Open tau2 results…, typing ``path`` (None: escape)."""
    await run_command(pilot, "Open tau2 results")
    assert isinstance(pilot.app.screen, OpenTau2Screen)
    box = pilot.app.screen.query_one(Input)
    assert pilot.app.focused is box
    if path is None:
        await pilot.press("escape")
    else:
        box.value = path
        await pilot.press("enter")
    await settle(pilot)


@needs_tau2
async def test_open_tau2_loads_it_opens_the_tab_and_reload_follows_it(demo_copy, tmp_path):
    results = tmp_path / "results.json"
    shutil.copy(DATA / GPT41, results)
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_tau2(pilot, str(results))
        assert not isinstance(app.screen, OpenTau2Screen)
        await pilot.pause()
        assert app.main.query_one("TabbedContent").active == "tau2"
        assert app.tau2_metrics["avg_reward"] == pytest.approx(0.8, abs=1e-12)
        assert "avg_reward 0.800," in text_of(app, "#tau2-summary")
        assert app.tau2_path == str(results) and app.config.tau2 is None  # the command line is left as it was
        shutil.copy(DATA / QWEN, results)
        await pilot.press("r")
        await settle(pilot)
        assert app.tau2_metrics["avg_reward"] == pytest.approx(0.18, abs=1e-12)
        assert app.state is not None and not app.problems  # the run was reloaded too


@needs_tau2
async def test_open_tau2_on_the_demo_keeps_the_demo_on_reload():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_tau2(pilot, str(DATA / GPT41))
        assert app.tau2_metrics is not None
        (shown,) = [n.split("\n")[1] for n in notes(app) if n.startswith("Opened tau2-bench results:\n")]
        assert len(shown) == min(60, SIZE[0] // 2) - 3 < len(str(DATA / GPT41)) and shown.endswith("5tasks.json")
        await pilot.press("r")
        await settle(pilot)
        assert app.state is not None and app.state.demo and app.sub_title.startswith("DEMO")


@needs_tau2
async def test_watch_follows_the_tau2_file_opened(demo_copy, tmp_path):
    results = tmp_path / "results.json"
    shutil.copy(DATA / GPT41, results)
    app = create_app(DashboardConfig(run_dir=str(demo_copy), watch=True), watch_debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_tau2(pilot, str(results))
        assert app.tau2_metrics["avg_reward"] == pytest.approx(0.8, abs=1e-12)

        def replace_results() -> None:
            fresh = tmp_path / "results.json.new"
            shutil.copy(DATA / QWEN, fresh)
            fresh.replace(results)

        replace_results()
        for i in range(600):  # up to 30 s of waits or more, however busy the machine
            await pilot.pause(0.05)
            if app.tau2_metrics["avg_reward"] == pytest.approx(0.18, abs=1e-12):
                break
            if i % 10 == 9:  # again, should the watcher restarted on the new set of files have missed it
                replace_results()
        assert app.tau2_metrics["avg_reward"] == pytest.approx(0.18, abs=1e-12)


@needs_tau2
@pytest.mark.parametrize("bad", ["missing", "not-json"])
async def test_open_tau2_rejected_keeps_the_previous_view(tmp_path, bad):
    first = str(DATA / GPT41)
    target = tmp_path / "results.json"
    if bad == "not-json":
        target.write_text("{")
    app = create_app(DashboardConfig(tau2=first))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = text_of(app, "#tau2-summary")
        await open_tau2(pilot, str(target))
        assert text_of(app, "#tau2-summary") == before  # still the first file, no "rejected" banner over it
        assert app.tau2_path == first and app.tau2_metrics["avg_reward"] == pytest.approx(0.8, abs=1e-12)
        assert app.tau2_problems and all(str(target) in p.file for p in app.tau2_problems)
        # the path on a line of its own, cut in the middle to the notification's width (60 cells, at most half
        # the screen, less 3): a notification breaks at spaces only, and a long path broke inside a name
        (note,) = [n for n in notes(app) if n.startswith("tau2-bench results rejected (1 problem; see ")]
        _, shown, kept = note.split("\n")
        room = min(60, SIZE[0] // 2) - 3
        assert shown == str(target) if len(str(target)) <= room else (len(shown) == room and "…" in shown)
        assert shown.endswith("/results.json") and kept == "still showing the results shown before."
        assert app.main.query_one("#diagnostics-tau2").row_count == len(app.tau2_problems)
        assert "⚠" in str(app.main.query_one("TabbedContent").get_tab("diagnostics").label)
        await pilot.press("r")  # r reloads the file still shown
        await settle(pilot)
        assert app.tau2_problems == [] and app.tau2_metrics["avg_reward"] == pytest.approx(0.8, abs=1e-12)


async def test_open_tau2_escape_cancels():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        generation = app._tau2_generation
        await open_tau2(pilot, None)
        assert not isinstance(app.screen, OpenTau2Screen)
        assert app._tau2_generation == generation and app.tau2_path is None and app.tau2_metrics is None


async def test_open_tau2_dialog_fits_80x24():
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Open tau2 results")
        screen = app.screen
        assert isinstance(screen, OpenTau2Screen)
        body = screen.query_one("#open-tau2-body").region
        box = screen.query_one(Input).region
        assert body.x >= 0 and body.y >= 0 and body.right <= 80 and body.bottom <= 23  # above the footer
        assert box.width >= 60 and body.contains_region(box)


def test_help_names_the_new_commands():
    for words in ("Compare A vs B", "Filter instances", "Open tau2 results", "config.json"):
        assert words in PALETTE


# --- the remembered theme ----------------------------------------------------------------------


def test_every_test_has_its_own_config_folder(isolated_config):
    assert os.environ["XDG_CONFIG_HOME"] == str(isolated_config)
    assert config_path() == isolated_config / "tcsexam" / "config.json"


def test_config_path_defaults_to_home_config(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert config_path() == tmp_path / ".config" / "tcsexam" / "config.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # XDG: a relative path is ignored
    assert config_path() == tmp_path / ".config" / "tcsexam" / "config.json"


async def test_a_theme_picked_is_written_and_restored(isolated_config):
    path = isolated_config / "tcsexam" / "config.json"
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not path.exists()  # starting does not write
        await pilot.press("ctrl+p")
        await pilot.pause()
        palette = app.screen
        await pilot.press(*"theme")
        await palette_hits(pilot, "theme")
        await pilot.press("enter")  # Textual's "Theme" command: the theme picker, a palette of its own
        await wait_until(pilot, lambda: app.screen is not palette, "the theme picker")
        await palette_hits(pilot, "")
        await pilot.press(*"nord")
        await palette_hits(pilot, "nord")
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "nord"
    assert json.loads(path.read_text(encoding="utf-8")) == {"theme": "nord"}
    assert [p.name for p in path.parent.iterdir()] == ["config.json"]  # no temporary file left
    again = create_app()
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.theme == "nord" and not notes(again)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"{", "line 1 column 2: not JSON: Expecting property name enclosed in double quotes"),
        (b'["nord"]', "not a JSON object"),
        (b'{"theme": 3}', "field 'theme': not a string"),
        (b'{"theme": "no-such-theme"}', "field 'theme': unknown theme 'no-such-theme'"),
        (b'{"theme": "\xff"}', "not UTF-8 (byte 11)"),
        (None, "not a regular file"),
    ],
)
async def test_a_bad_config_file_is_ignored_with_a_notification(isolated_config, content, why):
    path = isolated_config / "tcsexam" / "config.json"
    if content is None:
        path.mkdir(parents=True)
    else:
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
    app = create_app()
    default = app.theme
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == default == "textual-dark"
        assert f"Theme not restored: {path}: {why}." in notes(app)
        assert app.state is not None  # the dashboard works as without the file
    assert app.return_code in (0, None)


async def test_a_theme_that_cannot_be_written_is_a_notification(isolated_config, monkeypatch):
    import tcsexam.scoring.safety.outputs
    from tcsexam.scoring.safety.outputs import WriteFailed

    path = isolated_config / "tcsexam" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"theme": "nord"}', encoding="utf-8")

    def refuse(target, data):
        raise WriteFailed(28, "No space left on device", str(target))

    monkeypatch.setattr(tcsexam.scoring.safety.outputs, "write_atomic", refuse)
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nord"
        app.theme = "gruvbox"
        await pilot.pause()
        assert f"Theme not remembered: cannot write {path}: No space left on device." in notes(app)
    assert path.read_text(encoding="utf-8") == '{"theme": "nord"}'


# --- the header says --watch is on ---------------------------------------------------------------


@pytest.mark.parametrize("watch", [False, True])
async def test_header_marks_watch_only_with_watch(demo_copy, watch):
    other = demo_copy.parent / "other"
    shutil.copytree(demo_copy, other)
    for more in ([], [str(other)]):  # one run, and the several-runs header (run_header)
        app = create_app(DashboardConfig(run_dir=str(demo_copy), more_runs=more, watch=watch), watch_debounce_ms=50)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.sub_title.endswith(" · watching") == watch, app.sub_title
            assert app.sub_title.count(" · watching") == watch  # (the tmp folder's name holds the word)


def test_a_linked_config_file_is_written_through_and_a_hard_linked_one_is_left_alone(isolated_config, tmp_path):
    # docs/safety.md: a dotfile manager's symbolic link stays a link; a file of two names is not replaced
    from tcsexam.tui.settings import save_theme

    path = isolated_config / "tcsexam" / "config.json"
    path.parent.mkdir(parents=True)
    kept = tmp_path / "dotfiles" / "tcsexam.json"
    kept.parent.mkdir()
    kept.write_text('{"theme": "nord"}', encoding="utf-8")
    path.symlink_to(kept)
    assert save_theme("gruvbox") is None
    assert path.is_symlink() and json.loads(kept.read_text(encoding="utf-8")) == {"theme": "gruvbox"}
    path.unlink()
    os.link(kept, path)
    error = save_theme("nord")
    assert error is not None and f"{path}: output has 2 names (hard links)" in error
    assert json.loads(path.read_text(encoding="utf-8")) == {"theme": "gruvbox"} and os.stat(path).st_nlink == 2


TAU2_FILE = Path(__file__).parent / "data" / "tau2" / "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json"


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_palette_offers_no_export_where_there_is_no_run(size):
    """With --tau2 alone there is no index.json to write: the palette does not offer what `e` refuses."""
    app = create_app(DashboardConfig(tau2=str(TAU2_FILE)))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        hits = await run_command(pilot, "Export", enter=False)
        assert not [h for h in hits if h.startswith("Export")], hits
    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        hits = await run_command(pilot, "Export", enter=False)
        assert "Export index.json" in hits


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_worst_instances_and_pass_k_keys_are_in_the_palette_with_their_keys(size):
    from textual.command import CommandList

    from tcsexam.tui.panes.overview.worst import WorstScreen

    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        model = app.selected_model
        for query, key in (("Worst instances of", "key w in Overview · "), ("pass^k of", "key p in Overview · ")):
            await run_command(pilot, query, enter=False)
            options = app.screen.query_one(CommandList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert any(p.startswith(f"{query} {model}") and key in p for p in prompts), prompts
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.main, "the palette closed")
        await run_command(pilot, "Worst instances of")
        await wait_until(pilot, lambda: isinstance(app.screen, WorstScreen), "the worst instances")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_every_key_of_the_tab_shown_is_in_the_palette_with_its_key_and_runs_there(size):
    """docs/dashboard.md#command-palette: every key the footer offers in a tab (help and quit, sort and
    filter, the tab's own keys) and every tab key is in the palette, named by its key (`key s`), and the
    command does what the key does."""
    from textual.command import CommandList, CommandPalette

    from tcsexam.tui.screens.sort_picker import SortPicker
    from tcsexam.tui.widgets.footer import footer_items

    app = create_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for tab in [pane.key for pane in PANES]:  # every tab, each with its own keys
            await pilot.press(tab)
            await settle(pilot)
            items, _ = footer_items(app.screen)
            keys = {item.display for item in items if item.enabled} | {str(n) for n in range(1, 9)}
            assert {"?", "q", "/", "s"} & keys  # the footer's keys were read
            await pilot.press("ctrl+p")
            await palette_hits(pilot, "")
            options = app.screen.query_one(CommandList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            missing = sorted(k for k in keys if not any(f"key {k}" in p for p in prompts))
            assert not missing, (tab, missing, prompts)
            assert sum(p.startswith("Quit") for p in prompts) == 1  # one Quit: the q key's
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette), "the palette closed")
        await run_command(pilot, "Go to Coverage")
        await wait_until(pilot, lambda: app.main.query_one("TabbedContent").active == "coverage", "Coverage")
        await run_command(pilot, "Go to Overview")
        await wait_until(pilot, lambda: app.main.query_one("TabbedContent").active == "overview", "the Overview")
        await run_command(pilot, "Sort by")
        await wait_until(pilot, lambda: isinstance(app.screen, SortPicker), "the sort picker")
