"""A small app that composes one pane alone and feeds it a fixed run, as the dashboard's app would: each
pane's snapshots (tests/test_pane_snapshots.py) then show that pane and nothing else, so that a new tab or
another pane's change leaves them as they are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import App, ComposeResult

from tcsexam.tui import app as dashboard
from tcsexam.tui.panes import Tab
from tcsexam.tui.panes.leaderboard.views import leaderboard_groups
from tcsexam.tui.panes.overview.views import INDEX_COLUMN, overview_rows, sort_rows
from tcsexam.tui.run_view import RunView
from tcsexam.tui.state import DashboardState


class PaneHost(App):
    """One pane (``tab.widget``) on the dashboard's shared rules and breakpoints, fed by ``feed`` once mounted;
    the pane's keyboard widget (``tab.focus``) takes the focus, as when its tab opens."""

    CSS_PATH = str(Path(dashboard.__file__).with_name("app.tcss"))
    VERTICAL_BREAKPOINTS = dashboard.TcsexamApp.VERTICAL_BREAKPOINTS
    HORIZONTAL_BREAKPOINTS = dashboard.TcsexamApp.HORIZONTAL_BREAKPOINTS
    loading = False  # as the dashboard's app says when no run is loading (settle asks it)

    def __init__(self, tab: Tab, feed: Callable[[object], None], state: DashboardState | None = None) -> None:
        super().__init__()
        self.tab = tab
        self.feed = feed
        self.state = state  # the run a pane reads from the app (the Overview's worst instances)

    @property
    def main(self):
        """The screen the pane is on (the dashboard's app names its own screen so)."""
        return self.screen

    def compose(self) -> ComposeResult:
        yield self.tab.widget()

    def on_mount(self) -> None:
        self.feed(self.query_one(self.tab.widget))
        self.query_one(self.tab.focus).focus()


def run_view(state: DashboardState) -> RunView:
    """The view the dashboard gives every pane of a run but the Overview once the Overview has chosen: its
    rows in its first order (the index, highest first), the first of them selected."""
    order = [row.model for row in sort_rows(overview_rows(state.document), INDEX_COLUMN, reverse=True)]
    return RunView(state, order[0], order)


def feeder(tab: Tab, state: DashboardState, tau2: dict | None, source: str = "DEMO") -> Callable[[object], None]:
    """How the dashboard's app feeds ``tab``'s pane: a run's view, or (the panes that show no run) the
    run's problems (none), its leaderboard (``source``: the run as the app names it, DEMO for the demo),
    the tau2 file."""
    if tab.id == "overview":
        return lambda pane: pane.show_run(RunView(state, None))
    if tab.shows_run:
        return lambda pane: pane.show_run(run_view(state))
    if tab.id == "diagnostics":
        return lambda pane: pane.show(
            [], [], None, kept=True, base=None, leaderboard=[], notices=state.said, findings=state.finding_count
        )
    if tab.id == "leaderboard":
        groups, problems = leaderboard_groups([(source, state.document)])
        return lambda pane: pane.show(groups, problems, [], 1, [])
    if tab.id == "tau2":
        assert tau2 is not None
        return lambda pane: pane.show(tau2["metrics"], tau2["meta"], tau2["results"])
    raise AssertionError(f"no feeder for the tab {tab.id}")
