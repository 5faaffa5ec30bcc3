"""Instances search (`/`, then `n` / `N`): substring matches over the name column, in the view's order."""

from __future__ import annotations

import dataclasses

import numpy as np
from textual.widgets import Select

from tcsexam.tui.app import create_app
from tcsexam.tui.messages import InstancesLoaded
from tcsexam.tui.panes.instances.pane import InstancesPane
from tcsexam.tui.panes.instances.table import InstanceTable, name_matches, step_match
from tests.support.dashboard import notifications, select_options, settle

SIZE = (120, 40)


def lowered(names: list[str]) -> np.ndarray:
    return np.strings.lower(np.array([n.encode() for n in names], dtype="S"))


def test_name_matches_are_substrings_in_either_case_and_in_view_order():
    names = lowered(["alpha", "Beta", "ALPHABET", "gamma", "delta"])
    # the view: delta, ALPHABET, alpha, gamma (Beta filtered out)
    order = np.array([4, 2, 0, 3])
    assert name_matches(names, order, "ALPHA").tolist() == [1, 2]  # ALPHABET at 1, alpha at 2
    assert name_matches(names, order, "ta").tolist() == [0]  # delta; Beta has it too but is not in view
    assert name_matches(names, order, "a").tolist() == [0, 1, 2, 3]
    assert name_matches(names, order, "bet").tolist() == [1]
    assert name_matches(names, order, "zeta").tolist() == []
    assert name_matches(names, order, "").tolist() == []
    assert name_matches(names, np.zeros(0, dtype=np.int64), "a").tolist() == []


def test_name_matches_handle_utf8_names():
    names = lowered(["Köln-1", "koln-2", "KÖLN-3"])
    # ASCII letters fold, others are matched as written: the names lower to köln-1, koln-2, kÖln-3
    assert name_matches(names, np.arange(3), "kö").tolist() == [0]
    assert name_matches(names, np.arange(3), "KÖ").tolist() == [2]
    assert name_matches(names, np.arange(3), "KOLN").tolist() == [1]
    assert name_matches(names, np.arange(3), "LN-").tolist() == [0, 1, 2]


def test_step_match_goes_forward_and_back_and_wraps():
    matches = np.array([2, 5, 9])
    assert step_match(matches, 0, 0) == 0  # first at or after the cursor
    assert step_match(matches, 5, 0) == 1  # the cursor is on a match: that one
    assert step_match(matches, 6, 0) == 2
    assert step_match(matches, 10, 0) == 0  # past the last: wraps to the first
    assert step_match(matches, 5, 1) == 2  # next after the cursor
    assert step_match(matches, 9, 1) == 0  # wraps
    assert step_match(matches, 5, -1) == 0  # previous before the cursor
    assert step_match(matches, 2, -1) == 2  # wraps to the last
    assert step_match(matches, 3, -1) == 0


async def _instances(pilot):
    await settle(pilot)
    await pilot.press("3")
    await settle(pilot)
    return pilot.app.query_one(InstancesPane), pilot.app.query_one(InstanceTable)


def detail(app) -> str:
    return str(app.query_one("#instances-detail").render())


async def test_search_steps_through_the_matches_with_n_and_N_and_counts_them():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await _instances(pilot)
        cols = pane.columns
        # the demo's atlas-70b maxcut-mqlib attempt 1: MAX0001 … MAX0040, sorted by name.
        # "3" is in MAX0003, MAX0013, MAX0023 and MAX0030 … MAX0039: 13 names
        assert [cols.name(i) for i in table.order[:3]] == ["MAX0001", "MAX0002", "MAX0003"]
        await pilot.press("slash", "3", "enter")
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0003"
        assert app.focused is table
        assert "match 1 of 13 for '3'" in detail(app)
        await pilot.press("n")
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0013"
        assert "match 2 of 13 for '3'" in detail(app)
        await pilot.press("N", "N")  # back to the first, then wraps to the last
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0039"
        assert "match 13 of 13" in detail(app)
        await pilot.press("S")  # reverse the sort: an explicit sort puts the cursor on row 1, MAX0040
        await settle(pilot)
        assert table.cursor == 0 and cols.name(table.current_row()) == "MAX0040"
        await pilot.press("n")  # the next match in the new order: MAX0039, now the first
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0039"
        assert "match 1 of 13" in detail(app)
        await pilot.press("n")
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0038"
        await pilot.press("slash", *"max000", "enter")  # either case: MAX0001 … MAX0009
        await pilot.pause()
        assert "of 9 for 'max000'" in detail(app)


async def test_search_without_a_match_says_so_and_leaves_the_cursor():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await _instances(pilot)
        await pilot.press("down", "down")
        await pilot.press("slash", *"zzz", "enter")
        await pilot.pause()
        assert table.cursor == 2
        assert app.focused is table  # enter gives the keyboard back even so: q quits, not types "zzzq"
        messages = notifications(app)
        assert any("No instance name contains 'zzz'" in m for m in messages)
        await pilot.press("escape", "n")  # n with no match: still nothing moves
        await pilot.pause()
        assert table.cursor == 2


async def test_the_cursor_follows_the_search_as_it_is_typed_and_goes_back_when_nothing_matches():
    """Each key typed after `/` moves the cursor, before enter: to the first name containing the text
    at or after where the cursor was when the typing began; back there (the line under the table
    saying so) when no name matches, or the text is erased."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await _instances(pilot)
        cols = pane.columns
        await pilot.press(*["down"] * 4)  # MAX0005
        await pilot.press("slash", "1")  # MAX0010 is the first name with a 1 at or after MAX0005
        await pilot.pause()
        assert pilot.app.focused is pilot.app.query_one("#instances-jump")
        assert cols.name(table.current_row()) == "MAX0010"
        await pilot.press("5")  # "15": MAX0015
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0015"
        await pilot.press("9")  # "159": no name
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0005"
        assert "no instance name contains '159' in this view" in detail(app)
        await pilot.press("backspace", "backspace")  # "1" again: from where the typing began
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0010"
        await pilot.press("backspace")
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0005"
        await pilot.press(*"0002")  # the very name, before the names after the start that contain it
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0002"
        await pilot.press("escape")  # the table again, the cursor where the search put it
        await pilot.pause()
        assert pilot.app.focused is table and cols.name(table.current_row()) == "MAX0002"
        await pilot.press("slash", "3")  # a new search begins where the cursor is now
        await pilot.pause()
        # the box selects its old text when it takes the keyboard: what is typed replaces it
        assert pilot.app.query_one("#instances-jump").value == "3"
        assert cols.name(table.current_row()) == "MAX0003"


async def test_search_prefers_the_instance_of_that_very_name():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await _instances(pilot)
        cols = pane.columns
        # rename the demo's 40 instances: inst1, inst10, inst11, … (inst1 is a part of 11 names)
        names = [f"inst{k}" for k in range(1, 41)]
        renamed = dataclasses.replace(cols, names=np.array([n.encode() for n in names], dtype="S"))
        pane.on_instances_loaded(InstancesLoaded(pane.key, renamed))
        await settle(pilot)
        table.move_to(20)  # past inst1 and inst10 … inst19 in name order
        await pilot.press("slash", *"inst1", "enter")
        await pilot.pause()
        assert renamed.name(table.current_row()) == "inst1"
        assert "match 1 of 11 for 'inst1'" in detail(app)  # inst1, inst10 … inst19
        await pilot.press("n")
        await pilot.pause()
        assert renamed.name(table.current_row()) == "inst10"


def test_help_and_footer_name_the_search_keys():
    from tcsexam.tui.panes.instances.pane import InstancesPane as Pane

    assert "`n` / `N` next / previous match" in Pane.HELP
    shown = {(b.key, b.description) for b in Pane.BINDINGS if b.show}
    assert {("n", "Next match"), ("N", "Prev match"), ("slash", "Search names")} <= shown


async def test_the_selects_offer_the_options_the_pane_gave_them_and_are_not_given_them_again(monkeypatch):
    """The pane keeps the options it gave its task and attempt Selects (it reads nothing back from a
    Select): they are what each Select offers, and a context that offers the same ones leaves the Selects
    alone (a reset restyles a Select)."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        pane, _ = await _instances(pilot)

        def offered(select_id: str) -> list[tuple[str, str]]:  # as the Select keeps them (Textual's own list)
            select = pane.query_one(f"#{select_id}", Select)
            return [(str(label), value) for label, value in select_options(select) if value is not Select.NULL]

        def agree() -> None:
            assert set(pane.select_options) == {"instances-task", "instances-attempt"}
            for select_id, given in pane.select_options.items():
                assert given and given == offered(select_id)

        agree()
        state, model = pane.state, pane.model
        assert state is not None and model is not None
        reset: list[str | None] = []
        set_options = Select.set_options
        monkeypatch.setattr(
            Select, "set_options", lambda select, options: (reset.append(select.id), set_options(select, options))[1]
        )
        pane.set_context(state, model)
        await settle(pilot)
        assert reset == []  # the same run and model: the same options
        agree()
        tasks = [value for _, value in pane.select_options["instances-task"]]
        pane.go_to(pane.model, tasks[-1])
        await settle(pilot)
        assert pane.query_one("#instances-task", Select).value == tasks[-1]
        agree()
        pane.go_to(pane.model, "no such task")  # not offered: nothing changes
        await settle(pilot)
        assert pane.query_one("#instances-task", Select).value == tasks[-1]
        other = next(m for m in state.models if m != model)
        pane.set_context(state, other)
        await settle(pilot)
        agree()


async def test_a_search_typed_after_leaving_the_box_with_tab_begins_where_the_cursor_is():
    """The start of a search typed (where the cursor goes back to) was kept after Tab took the keyboard
    away from the box, so the next search began at the old place (a maintainer's review)."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await _instances(pilot)
        cols = pane.columns
        await pilot.press("slash", "z", "z")  # no match: the cursor stays on MAX0001
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0001"
        await pilot.press("tab")  # the keyboard leaves the box
        await pilot.pause()
        table.focus()
        table.move_to(20)  # MAX0021
        await pilot.pause()
        app.query_one("#instances-jump").focus()
        await pilot.press("ctrl+u", "q", "q")  # no match: back to where this typing began, MAX0021
        await pilot.pause()
        assert cols.name(table.current_row()) == "MAX0021"


async def test_another_task_shown_forgets_the_search_typed_for_the_last():
    """A search for MIP001 stayed after the drill-down moved to maxcut, whose note then said "no instance
    name contains 'MIP001' in this view" (a review). The same attempt reloaded keeps it."""
    from textual.widgets import Input

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await _instances(pilot)
        await pilot.press("slash", *"MAX0002", "enter")
        await settle(pilot)
        assert pane.query_text == "MAX0002" and "MAX0002" in pane.match_note()
        await pilot.press("r")  # the same attempt, reloaded: the search stays
        await settle(pilot)
        assert pane.query_text == "MAX0002"
        pane.query_one("#instances-task", Select).value = "sat-race"
        await settle(pilot)
        assert pane.query_text is None and pane.match_note() == ""
        assert pane.query_one("#instances-jump", Input).value == ""
