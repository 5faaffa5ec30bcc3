"""Every key discoverable (docs/dashboard.md#keys): every tab opens with its number key from every
other tab, `?` lists the keys of the tab shown, the footer keeps `?` and `q`, the palette shows keys."""

from __future__ import annotations

import itertools

import pytest
from textual.widgets import TabbedContent

from tcsexam.tui.app import create_app
from tcsexam.tui.panes import PANES
from tests.support.dashboard import bound_keys, settle, wait_until

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}


def active(app) -> str:
    return app.main.query_one(TabbedContent).active


def every_ordered_pair(items: list) -> list:
    """A walk through ``items`` that steps once from each item to each item, itself included: item i, then
    i and each later item in turn, for each i, and the first again at the end (a de Bruijn sequence of
    order 2). len(items)² steps, where pressing a start key and then a target key for each pair takes twice as many."""
    walk = []
    for i, a in enumerate(items):
        walk.append(a)
        for b in items[i + 1 :]:
            walk += [a, b]
    return walk + walk[:1]


@pytest.mark.parametrize("size", SIZES)
async def test_every_tab_key_opens_its_tab_from_every_tab(size):
    """`7` from Coverage, pass^k or Compare used to leave the tab open: the focus stayed on the tab
    left (Diagnostics' table is hidden while there are no problems) and the tabs follow the focus."""
    walk = every_ordered_pair(list(PANES))
    steps = [(start.id, target.id) for start, target in itertools.pairwise(walk)]
    assert sorted(steps) == sorted((start.id, target.id) for start in PANES for target in PANES)  # each once
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press(walk[0].key)
        await wait_until(pilot, lambda: active(app) == walk[0].id, f"tab {walk[0].id}")
        for start, target in itertools.pairwise(walk):
            await pilot.press(target.key)
            await settle(pilot)
            assert active(app) == target.id, f"{target.key} from {start.id}"


def this_tab_section(text: str) -> str:
    return text[text.index("## Keys of this tab") : text.index("## Keys in every tab")]


# the keys docs/dashboard.md#keys gives each tab beside the keys of every tab (q ? e r R)
DOCUMENTED = {
    "overview": ["⏎", "p", "s", "S", "c", "C"],
    "coverage": ["⏎", "a"],
    "instances": ["/", "s", "S", "f", "n", "N"],
    "tau2": ["s", "S"],
    "leaderboard": ["⏎", "c", "C"],
}


@pytest.mark.parametrize("size", SIZES)
async def test_help_lists_every_key_of_the_tab_shown(size):
    from tcsexam.tui.screens.help import HelpScreen

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for tab in PANES:
            await pilot.press(tab.key)
            await wait_until(pilot, lambda tab=tab: active(app) == tab.id, f"tab {tab.id}")
            await settle(pilot)
            # the keys Textual itself finds active on the focused widget and above it (what Keys lists)
            bound = {app.get_key_display(b) for _, b, _, _ in app.screen.active_bindings.values() if b.show}
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
            section = this_tab_section(app.screen.text)
            assert f"## Keys of this tab: {tab.label()}" in section
            for key in [*DOCUMENTED.get(tab.id, []), "q", "?", "e", "r", "R"]:
                assert f"| `{key}` |" in section, (tab.id, key)
            for key in bound - {"^p"}:
                assert f"| `{key}` |" in section, (tab.id, key)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), "the help closed")
            await settle(pilot)  # the help gone and the tab's focus back before the next tab's key


@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_keeps_help_and_quit_and_shortens_before_it_drops(size):
    from tcsexam.tui.widgets.footer import DashboardFooter, footer_items, short_labels

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for tab in PANES:
            await pilot.press(tab.key)
            await wait_until(pilot, lambda tab=tab: active(app) == tab.id, f"tab {tab.id}")
            await settle(pilot)
            footer = app.main.query_one(DashboardFooter)
            text = footer.render().plain
            assert " ? Help" in text and " q Quit" in text, (tab.id, text)
            items, _ = footer_items(app.screen)
            drawn = [item for _, _, item in footer._spans][:-1]  # the last: the palette's key
            short = dict(zip([i.key for i in items], short_labels([i.description for i in items]), strict=True))
            if len(drawn) < len(items):  # a key left out: every key drawn has its short label
                for item in drawn:
                    assert f" {item.display} {short[item.key]} " in text
                    assert item.description == short[item.key] or f" {item.display} {item.description} " not in text
            labels = [text[x0:x1].strip().removeprefix(item.display).strip() for x0, x1, item in footer._spans]
            assert len(set(labels)) == len(labels), (tab.id, labels)  # no two keys read alike ("c Copy  C Copy")
            if size == "200x50":  # the widest terminal: every key with its full label
                assert len(drawn) == len(items)
                for item in items:
                    assert f" {item.display} {item.description} " in text, (tab.id, item)


@pytest.mark.parametrize("size", SIZES)
async def test_palette_entries_show_their_key(size):
    from textual.command import CommandList

    from tests.support.dashboard import run_command

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for query, key in [
            ("Export index.json", "key e · write "),
            ("Reload inputs", "key r · "),
            ("Copy table as Markdown", "key c in Overview · "),
            ("Copy table as LaTeX", "key C in Overview · "),
        ]:
            await run_command(pilot, query, enter=False)
            options = app.screen.query_one(CommandList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert any(p.startswith(query) and key in p for p in prompts), (query, prompts)
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.main, "the palette closed")


@pytest.mark.parametrize("size", SIZES)
async def test_j_k_g_G_move_in_every_table_as_in_vim_and_k9s(size):
    """docs/dashboard.md#keys: `j`/`k` move down/up, `g`/`G` go to the first and last row, in every table."""
    from textual.widgets import DataTable

    from tcsexam.tui.panes.instances.table import InstanceTable

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        checked = []
        for tab, selector in (("1", "#overview-table"), ("2", "#coverage-grid"), ("5", "#compare-tasks")):
            await pilot.press(tab)
            await settle(pilot)
            table = app.main.query_one(selector, DataTable)
            table.focus()
            await pilot.pause()
            assert table.row_count >= 3, selector
            await pilot.press("g")
            await pilot.pause()
            assert table.cursor_row == 0, selector
            await pilot.press("j", "j")
            await pilot.pause()
            assert table.cursor_row == 2, selector
            await pilot.press("k")
            await pilot.pause()
            assert table.cursor_row == 1, selector
            await pilot.press("G")
            await pilot.pause()
            assert table.cursor_row == table.row_count - 1, selector
            assert active(app) == {"1": "overview", "2": "coverage", "5": "compare"}[tab]  # k never left the tab
            checked.append(selector)
        await pilot.press("3")
        await settle(pilot)
        instances = app.main.query_one(InstanceTable)
        await wait_until(pilot, lambda: len(instances.order) > 3, "the Instances rows")
        instances.focus()
        await pilot.press("G")
        await pilot.pause()
        assert instances.cursor == len(instances.order) - 1
        await pilot.press("k", "k", "j")
        await pilot.pause()
        assert instances.cursor == len(instances.order) - 2
        await pilot.press("g")
        await pilot.pause()
        assert instances.cursor == 0
        assert len(checked) == 3


@pytest.mark.parametrize("size", SIZES)
async def test_p_opens_pass_k_and_colon_opens_the_palette(size):
    from textual.command import CommandPalette

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        app.main.query_one("#overview-table").focus()
        await pilot.press("p")
        await wait_until(pilot, lambda: active(app) == "passk", "the pass^k tab")
        await pilot.press("colon")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")


async def help_open(pilot) -> None:
    """The dashboard loaded, then `?`: the help on screen."""
    from tcsexam.tui.screens.help import HelpScreen

    await settle(pilot)
    await pilot.press("question_mark")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help screen")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
async def test_help_lists_the_tabs_keys_compactly_first_and_slash_filters_it(size):
    """docs/dashboard.md#keys: `?` shows the tab's keys first, one line each with no rule between them,
    and `/` inside the help keeps the lines that hold what is typed (with their headings)."""
    from tcsexam.tui.screens.help import HelpScreen, shown_lines
    from tests.support.dashboard import screen_lines

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await help_open(pilot)
        lines = [line.strip(" │▁▂▃▄▅▆▇█▔") for line in screen_lines(app)]
        first = next(i for i, line in enumerate(lines) if line.startswith("Keys of this tab: 1 Overview"))
        keys = [line for line in lines[first + 1 :] if line][:4]
        # one key a line, straight away; esc (clearing a filter kept) first, as in the footer, where 80
        # columns left it out when it came last
        assert [k.split()[0] for k in keys[:3]] == ["esc", "/", "s"], keys
        assert not any(set(line) & set("├┼┤─") for line in lines[first:] if "╰" not in line)  # no rules
        await pilot.press("slash", *"worst")
        await wait_until(pilot, lambda: app.screen.query_one("#help-filter").value == "worst", "the typed filter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        kept = shown_lines(screen.lines, "worst")
        assert kept and all("worst" in f"{key} {text}".lower() for key, text, style in kept if style != "bold")
        lines = [line.strip(" │▁▂▃▄▅▆▇█▔") for line in screen_lines(app)]
        assert any(line.split()[:2] == ["w", "Worst"] for line in lines if line), lines  # the key itself
        assert not any(line.split()[:2] == ["s", "Sort"] for line in lines if line), lines  # and not the others


@pytest.mark.parametrize("size", SIZES)
async def test_a_help_line_too_long_for_the_box_wraps_under_its_own_text(size):
    """An action wider than the help's box goes on under the action, not under its key; a paragraph
    or a list item the source wrapped is one text, wrapped at the box's width (no short lines)."""
    from tests.support.dashboard import screen_lines

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await help_open(pilot)
        await pilot.press("slash", *"export: the run")
        await wait_until(pilot, lambda: app.screen.query_one("#help-filter").value == "export: the run", "the filter")
        await pilot.pause()
        lines = [line.split("│")[1] if line.count("│") >= 2 else line for line in screen_lines(app)]
        first = next(i for i, line in enumerate(lines) if "Export: the run shown as index.json" in line)
        column = lines[first].index("Export:")
        follows = lines[first + 1]
        assert follows[:column].strip() == "" and follows[column] != " ", (lines[first], follows)
        app.screen.query_one("#help-filter").value = "compare mode"
        await pilot.pause()
        lines = [line.split("│")[1] if line.count("│") >= 2 else line for line in screen_lines(app)]
        item = next(i for i, line in enumerate(lines) if "- Compare A vs B:" in line)
        # the item's second line starts under its text, and is full: the source's line break is gone
        assert lines[item + 1].startswith("   ") and lines[item + 1][3] != " "
        assert len(lines[item + 1].rstrip()) > len(lines[item].rstrip()) // 2, lines[item : item + 3]


async def test_keys_typed_right_after_slash_in_the_help_land_in_its_filter():
    """A burst ('/' and a word at once, as a fast typist or a paste sends them): every key reaches the
    help's filter; none is lost to the field not having the keyboard yet."""
    from tcsexam.tui.screens.help import HelpScreen
    from tests.support.dashboard import burst

    app = create_app()
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        await settle(pilot)
        burst(app, "/sort")
        await wait_until(pilot, lambda: app.screen.query_one("#help-filter").value == "sort", "the burst in the filter")


@pytest.mark.parametrize("size", SIZES)
async def test_q_closes_the_help_on_every_tab_and_types_only_after_slash(size):
    """`?` then `q` closes the help, as the help says (its filter's field, hidden until `/`, took the q);
    after `/`, a q typed is part of the filter."""
    from tcsexam.tui.panes import PANES
    from tcsexam.tui.screens.help import HelpScreen

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for pane in PANES:
            await pilot.press(pane.key)
            await wait_until(pilot, lambda pane=pane: active(app) == pane.id, f"the tab {pane.id}")
            await settle(pilot)
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
            await pilot.press("q")
            await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), f"the help closed on {pane.id}")
            assert app.is_running and active(app) == pane.id
            await settle(pilot)  # the help gone and the tab's focus back before the next tab's key
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        await pilot.press("slash", "q")
        await wait_until(pilot, lambda: app.screen.query_one("#help-filter").value == "q", "q in the filter")
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_shows_the_new_tabs_keys_in_the_frame_after_the_key(size):
    """The footer follows the tab at once: the line drawn after `2` shows Coverage's `a` and no longer
    Overview's `p`, and back (what was last drawn, not what the footer would draw now)."""
    from tcsexam.tui.widgets.footer import DashboardFooter

    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        footer = app.main.query_one(DashboardFooter)

        def drawn() -> set[str]:
            return {item.key for _, _, item in footer._spans}

        assert "p" in drawn() and "a" not in drawn()
        for key, shown, gone in [("2", "a", "p"), ("1", "p", "a")]:
            await pilot.press(key)
            await pilot.pause()
            assert shown in drawn() and gone not in drawn(), (key, drawn())


def test_every_table_of_the_dashboard_takes_j_k_g_G():
    """No table of tui/ is a plain DataTable: each is a SteadyDataTable, or a subclass keeping its keys."""
    import ast
    import importlib
    import pkgutil
    from pathlib import Path

    from tcsexam import tui
    from tcsexam.tui.textual_ext.data_table import SteadyDataTable

    root = Path(tui.__file__).parent
    plain = []
    for path in sorted(root.rglob("*.py")):
        if path.parent.name == "textual_ext":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = isinstance(node, ast.Call) and getattr(node.func, "id", None) == "DataTable"
            based = isinstance(node, ast.ClassDef) and any(getattr(b, "id", None) == "DataTable" for b in node.bases)
            if called or based:
                plain.append(f"{path.relative_to(root)}:{node.lineno}")
    assert plain == []
    for module in pkgutil.walk_packages(tui.__path__, "tcsexam.tui."):
        importlib.import_module(module.name)
    tables, todo = [], [SteadyDataTable]
    while todo:
        cls = todo.pop()
        tables.append(cls)
        todo += cls.__subclasses__()
    assert len(tables) >= 7  # the Overview's, Coverage's two, Compare's, the Leaderboard's, the worst list's, ...
    for cls in tables:
        assert {"j", "k", "g", "G"} <= bound_keys(cls), cls.__name__


async def test_a_key_bound_twice_in_a_tab_says_where_each_applies():
    """Coverage's ⏎ opens a grid cell and goes to an issue's cell: its help lists ⏎ twice, each line
    saying which table it is for (a review read two ⏎ lines that seemed to contradict each other)."""
    from tcsexam.tui.screens.help import HelpScreen

    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await wait_until(pilot, lambda: active(app) == "coverage", "the Coverage tab")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        enters = [line for line in this_tab_section(app.screen.text).splitlines() if line.startswith("| `⏎` |")]
        assert len(enters) == 2, enters
        assert "in the grid" in enters[0] and "Open" in enters[0], enters
        assert "in the issues" in enters[1] and "Go to cell" in enters[1], enters


async def test_escape_closes_the_palettes_keys_panel_and_otherwise_keeps_its_uses():
    """The palette's "Keys" opens Textual's panel of keys, which only the palette closed: escape closes
    it now. Without the panel, escape does what it did (Instances: from the search box to the table)."""
    from textual.widgets import HelpPanel

    from tcsexam.tui.panes.instances.table import InstanceTable

    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_help_panel()  # what the palette's "Keys" runs
        await pilot.pause()
        assert app.screen.query(HelpPanel)
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query(HelpPanel)
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("slash")
        await pilot.pause()
        assert app.focused is app.query_one("#instances-jump")
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.query_one(InstanceTable)


async def test_home_and_end_go_to_the_first_and_last_row_of_a_table():
    """The help says Home / End move in a table: in a DataTable they scrolled to the first / last column
    (Textual's own keys), the cursor staying on its row (a review pressed End on the Overview)."""
    from textual.widgets import DataTable

    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one("#overview-table", DataTable)
        table.focus()
        column = table.cursor_column
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == table.row_count - 1 and table.cursor_column == column
        assert table.scroll_x == 0
        await pilot.press("home")
        await pilot.pause()
        assert table.cursor_row == 0 and table.cursor_column == column


def test_a_help_filter_that_names_a_section_keeps_all_of_it():
    """`?` then `/coverage` kept only the line of the tab keys that names Coverage (a review): each line is
    searched with its section's heading, so a tab's name keeps its whole section."""
    from tcsexam.tui.screens.help import shown_lines

    lines = [
        ("", "Keys in every tab", "bold"),
        ("1–8", "switch tab: Overview, Coverage, …", ""),
        ("", "2 Coverage", "bold"),
        ("", "A grid of models by tasks.", ""),
        ("⏎", "Open: a cell", ""),
        ("", "3 Instances", "bold"),
        ("/", "search names", ""),
    ]
    assert shown_lines(lines, "coverage") == lines[:5]  # the line that names it, then the whole section
    assert shown_lines(lines, "grid") == [lines[2], lines[3]]  # a line: with its heading
    assert shown_lines(lines, "instances search") == [lines[5], lines[6]]  # one word in the heading, one in the line
    assert shown_lines(lines, "") == lines
