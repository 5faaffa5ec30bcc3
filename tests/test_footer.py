"""The footer (tui/widgets/footer.py): one widget that shows the focused pane's keys, runs a clicked key,
and leaves out a key that does not fit rather than cutting it."""

from __future__ import annotations

from tcsexam.tui.app import create_app
from tcsexam.tui.panes.instances.pane import InstancesPane
from tcsexam.tui.screens.sort_picker import SortPicker
from tcsexam.tui.widgets.footer import DashboardFooter, footer_items, short_labels
from tests.support.dashboard import settle, wait_until


def shown(app) -> str:
    return app.query_one(DashboardFooter).render().plain


async def test_footer_follows_the_focused_tab():
    app = create_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "Search names" not in shown(app)
        await pilot.press("3")
        await settle(pilot)
        assert "Search names" in shown(app) and "Sort by…" in shown(app)
        await pilot.press("1")
        await settle(pilot)
        assert "Search names" not in shown(app)
        assert shown(app).rstrip().endswith("^p palette")  # the palette's key at the right edge


async def test_a_click_on_a_key_runs_it_and_a_disabled_key_does_nothing():
    app = create_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        footer = app.query_one(DashboardFooter)
        pane = app.query_one(InstancesPane)
        shown(app)  # draws the spans
        spans = {item.description: (start, item) for start, _, item in footer._spans}
        before = pane._sort_value()
        await pilot.click(DashboardFooter, offset=(spans["Sort by…"][0] + 1, 0))  # the sort picker
        await wait_until(pilot, lambda: isinstance(app.screen, SortPicker), "the sort picker")
        await pilot.press("down", "enter")  # the column after the current one: instance → status
        await wait_until(pilot, lambda: not isinstance(app.screen, SortPicker), "the picker closed")
        await settle(pilot)
        assert pane._sort_value() != before and pane._sort_value()[0] == "status"
        next_match = spans["Next match"][1]
        assert not next_match.enabled  # no search yet
        bells = []
        app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        before = pane._sort_value()
        await pilot.click(DashboardFooter, offset=(spans["Next match"][0] + 1, 0))
        await settle(pilot)
        assert bells == [1] and pane._sort_value() == before


async def test_a_key_that_does_not_fit_is_left_out_whole():
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        text = shown(app)
        footer = app.query_one(DashboardFooter)
        assert len(text) == 80
        assert text.rstrip().endswith("^p palette")
        left = [item for _, _, item in footer._spans][:-1]
        assert 0 < len(left) < len(footer_items(app.screen)[0])  # some left out at 80 columns
        every = footer_items(app.screen)[0]
        short = dict(zip([i.key for i in every], short_labels([i.description for i in every]), strict=True))
        for item in left:  # some are left out: the others are shortened first
            assert f" {item.display} {short[item.key]} " in text
        # what is left out is whole keys: the text before the palette is the kept keys and blanks
        drawn = "".join(f" {item.display} {short[item.key]} " for item in left)
        assert text.startswith(drawn) and not text[len(drawn) : text.index("▏")].strip()


def test_short_labels_are_first_words_unless_two_keys_would_read_alike():
    assert short_labels(["Sort by…", "Reverse sort", "Copy Markdown", "Copy LaTeX", "Quit"]) == [
        "Sort",
        "Reverse",
        "Copy Markdown",
        "Copy LaTeX",
        "Quit",
    ]
    assert short_labels(["Export", "Export to…", "Help"]) == ["Export", "Export to…", "Help"]


async def test_the_tau2_tab_without_a_file_offers_no_filter_or_sort():
    """A review typed / on the empty tau2 tab: 'filtering…' stayed for good, and s and S did nothing.
    With no file open the tab offers neither; with one it offers both."""
    from pathlib import Path

    from tcsexam.tui.state import DashboardConfig
    from tcsexam.tui.widgets.filter_bar import FilterBar

    app = create_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        assert "Filter" not in shown(app) and "Sort by…" not in shown(app)
        await pilot.press("slash", "a", "s")
        await settle(pilot)
        assert not app.main.query_one("#tau2-filter", FilterBar).has_class("-open")
        assert not isinstance(app.screen, SortPicker)
    tau2 = Path(__file__).parent / "data" / "tau2" / "derived" / "derived_C_edge_4x5.json"
    app = create_app(DashboardConfig(tau2=str(tau2)))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "Filter" in shown(app) and "Sort by…" in shown(app)


async def test_a_filter_kept_with_enter_leaves_esc_in_the_footer_at_80_columns():
    """docs/dashboard.md: the footer offers esc while a filter is on; at 80 columns it was the key left out
    (it came last of the pane's keys, a review). In each tab that filters, it is now there."""
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for tab in ("1", "2", "5", "8"):
            await pilot.press(tab)
            await settle(pilot)
            await pilot.press("slash", "a", "enter")
            await settle(pilot)
            assert "esc" in shown(app), (tab, shown(app))
            await pilot.press("escape")
            await settle(pilot)
            assert "esc" not in shown(app), (tab, shown(app))
