"""Names are data (docs/safety.md): the dashboard shows every name and typed text as plain text, never as markup,
with control, bidi and line-separator characters escaped exactly as the command line escapes them. Hypothesis draws model, item and attempt names from a hostile alphabet."""

from __future__ import annotations

import asyncio
import copy
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.widgets import DataTable, Input

from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.tui.app import create_app
from tcsexam.tui.panes import PANES
from tcsexam.tui.panes.coverage.pane import NAMED_WIDTH, TASK_WIDTH
from tcsexam.tui.state import DashboardConfig
from tcsexam.tui.views import middle_ellipsis, plain
from tests.support.dashboard import run_command, settle
from tests.support.runs import MINI_SUITE, Workspace, full_rows

HOSTILE = [
    "[",
    "]",
    "[/",
    "[b]",
    "[/x",
    "\\",
    "\x1b",
    "\x1b[31m",
    "\x07",
    "\u200f",
    "\u202e",
    "\u2028",
    "\u2066",
    "\x9b",
    "$",
    "{",
    "}",
    "=",
    "é",
    "日本",
    "a",
    "Z",
    "0",
    " ",
    "-",
    ".",
    ":",
    "'",
    '"',
    "%s",
]
name = (
    st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=8)
    .map("".join)
    .filter(lambda s: s.strip() not in ("", ".", ".."))
)
long_name = st.integers(60, 200).map(lambda n: "[b]" + "x" * n + "[/b]")


def test_plain_escapes_what_the_command_line_escapes_and_nothing_else():
    assert plain("a\x1b[31mb") == "a\\x1b[31mb"
    assert plain("[/x]\\ é 日本") == "[/x]\\ é 日本"  # brackets, backslashes and letters stay as written
    assert plain("\x07\x7f\x9b") == "\\x07\\x7f\\x9b"
    # bidi marks, overrides and isolates, the Arabic letter mark, line and paragraph separators
    assert plain("a\u202eb\u2028c\u200f\u2066\u061c\u2029") == "a\\u202eb\\u2028c\\u200f\\u2066\\u061c\\u2029"
    assert plain(7) == "7"


@given(st.text())
def test_plain_is_the_command_lines_escape(value):
    assert plain(value) == escape_for_terminal(value)


def hostile_run(root: Path, model: str, item: str, attempt: str) -> Workspace:
    ws = Workspace(root)
    suite = copy.deepcopy(MINI_SUITE)
    suite["tasks"][0]["item"] = item
    ws.write_json(ws.bench / "suites" / "lite.json", suite)
    rows = full_rows(model)
    rows[0]["item"], rows[0]["attempt"] = item, attempt
    ws.write_rows(rows)
    ws.write_cohort(models={model: {"attempts_per_task": 1}})
    return ws


async def visit_every_tab(model: str, item: str, attempt: str, typed: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = hostile_run(Path(tmp), model, item, attempt)
        out = Path(tmp) / f"[/{model[:10].replace('/', '_')}]" / "index.json"
        app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench), output=str(out)))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            for tab in PANES:
                await pilot.press(tab.key)
                await pilot.pause()
            if app.state is None:  # the name was rejected where it is read: the problem is shown
                assert app.main.query_one("#diagnostics-table", DataTable).row_count >= 1
                return
            table = app.main.query_one("#overview-table", DataTable)
            assert str(table.get_row_at(0)[0]) == middle_ellipsis(model)  # capped in the middle, escaped
            grid = app.main.query_one("#coverage-grid", DataTable)
            assert str(grid.ordered_columns[1].label) == middle_ellipsis(model, NAMED_WIDTH)  # capped, escaped
            assert grid.ordered_columns[1].key.value == model
            assert str(grid.get_row(item)[0]) == middle_ellipsis(f"P {item}", TASK_WIDTH)
            assert plain(model) in str(app.main.query_one("#passk-title").render())
            await pilot.press("3")
            await pilot.press("slash")
            jump = app.main.query_one("#instances-jump", Input)
            jump.value = typed
            await pilot.press("enter")  # no such instance: a warning that quotes the text as typed
            await pilot.pause()
            await pilot.press("escape")  # back to the table
            await pilot.press("e")
            await settle(pilot)
            assert out.is_file() and json.loads(out.read_text())["models"][model]


# eight runs of the app in two tests of four (hostile short names, long names), which pytest-xdist runs at once
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=name, item=name.filter(lambda s: "/" not in s), attempt=name, typed=name)
def test_every_tab_shows_hostile_names_as_written(model, item, attempt, typed):
    asyncio.run(visit_every_tab(model, item, attempt, typed))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=long_name, item=name.filter(lambda s: "/" not in s), attempt=name, typed=name)
def test_every_tab_shows_long_hostile_names_as_written(model, item, attempt, typed):
    asyncio.run(visit_every_tab(model, item, attempt, typed))


async def test_the_palette_shows_names_as_written_not_as_markup(tmp_path):
    # the palette reads a hit's display and help as markup: "[bold]x" would lose its brackets
    ws = hostile_run(tmp_path, "[bold]x", "p1", "1")
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.state is not None
        prompts = await run_command(pilot, "Jump to model", enter=False)
        assert "Jump to model [bold]x" in prompts, prompts


async def test_the_palette_jumps_to_a_model_whose_name_is_an_unclosed_markup_tag(tmp_path):
    # "z[/y" reads as the closing tag [/y] to textual's markup (its escape() leaves it as it is)
    ws = hostile_run(tmp_path, "z[/y", "p1", "1")
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.state is not None
        prompts = await run_command(pilot, "Jump to model z[/y")
        assert prompts[0] == "Jump to model z[/y", prompts
        assert app.selected_model == "z[/y"
        assert str(app.main.query_one("#overview-table", DataTable).get_row_at(0)[0]) == "z[/y"


async def test_a_bidi_override_and_a_line_separator_in_a_name_show_escaped_as_on_the_command_line(tmp_path):
    model = "evil\u202etxt.exe\u2028x"
    shown = "evil\\u202etxt.exe\\u2028x"  # the eleven characters of each escape, as `tcsexam validate` prints
    ws = hostile_run(tmp_path, model, "p1", "1")
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.state is not None
        assert str(app.main.query_one("#overview-table", DataTable).get_row_at(0)[0]) == shown
        await pilot.press("2")
        await pilot.pause()
        grid = app.main.query_one("#coverage-grid", DataTable)
        assert str(grid.ordered_columns[1].label) == middle_ellipsis(model, NAMED_WIDTH) == "evil\\u20…\\u2028x"
        prompts = await run_command(pilot, "Jump to model evil", enter=False)
        assert f"Jump to model {shown}" in prompts, prompts


async def test_no_tab_shows_an_invisible_character_raw(tmp_path):
    # docs/safety.md#terminals-get-no-control-characters: zero-width, word-joiner, byte-order-mark and bidi characters reach no
    # pane raw, the Overview chart's labels included (the screen as the terminal gets it)
    model = "atlas\u200b-70b\u2060\ufeff\u202e"
    raw = ["\u200b", "\u2060", "\ufeff", "\u202e"]
    ws = hostile_run(tmp_path, model, "p1", "1")
    app = create_app(DashboardConfig(run_dir=str(ws.run), benchmark=str(ws.bench)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.state is not None
        for tab in PANES:
            await pilot.press(tab.key)
            await settle(pilot)
            screen = app.export_screenshot()
            assert not [f"U+{ord(c):04X}" for c in raw if c in screen], tab.id
        await pilot.press("1")
        await settle(pilot)
        assert "atlas\\u200b" in app.export_screenshot()  # the name is there, escaped
